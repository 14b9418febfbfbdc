import { describe, expect, it } from 'vitest';

import { parseCSV, parseCSVRecords, toCSV } from './csv';

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
