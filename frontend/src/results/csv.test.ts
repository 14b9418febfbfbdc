import { describe, expect, it } from 'vitest';

import { escapeTextCell, parseCSV, parseCSVRecords, toCSV, unescapeTextCell } from './csv';

describe('toCSV', () => {
  it('quotes what needs quoting and leaves missing values empty', () => {
    const text = toCSV(['a', 'b', 'c'], [
      ['plain', 1.5, null],
      ['with, comma', 'say "hi"', Number.NaN],
      ['line\nbreak', true, undefined],
    ]);
    expect(text).toBe('a,b,c\r\nplain,1.5,\r\n"with, comma","say ""hi""",\r\n"line\nbreak",true,\r\n');
  });

  it('round-trips through parseCSV', () => {
    const rows = [
      ['x', 'y'],
      ['1', 'a "b", c'],
      ['', 'ä\nö'],
    ];
    expect(parseCSV(toCSV(rows[0] ?? [], rows.slice(1)))).toEqual(rows);
  });
});

describe('parseCSVRecords', () => {
  it('maps rows onto the header, with LF or CRLF and a BOM', () => {
    expect(parseCSVRecords('\uFEFFrater_id,rating\nP01,4\r\nP02,5\n')).toEqual([
      { rater_id: 'P01', rating: '4' },
      { rater_id: 'P02', rating: '5' },
    ]);
    expect(parseCSVRecords('')).toEqual([]);
  });
});

describe('formula cells (OWASP CSV injection)', () => {
  const calc = "=cmd|' /C calc'!A0";

  it('writes a text cell a spreadsheet would run as text, numbers as numbers', () => {
    const text = toCSV(['game', 'delay'], [[calc, -5], ['@SUM(A1)', 0], ['-1', 1], ['plain', 2]]);
    expect(text).toBe(`game,delay\r\n'${calc},-5\r\n'@SUM(A1),0\r\n'-1,1\r\nplain,2\r\n`);
  });

  it('reads the backend export back to the original names', () => {
    expect(parseCSVRecords(`game,rating\n'${calc},4\n''=x,3\n'plain,2\n`)).toEqual([
      { game: calc, rating: '4' },
      { game: "'=x", rating: '3' },
      { game: "'plain", rating: '2' },
    ]);
  });

  it('escapes reversibly', () => {
    for (const text of [calc, '+1', '-x', '@', '\tx', '\rx', "'=x", "''@x", 'a=b', "'", '']) {
      expect(unescapeTextCell(escapeTextCell(text))).toBe(text);
    }
  });
});
