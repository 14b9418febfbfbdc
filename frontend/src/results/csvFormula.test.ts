import { describe, expect, it } from 'vitest';

import { escapeTextCell, formulaStart, parseCSVRecords, toCSV, unescapeTextCell } from './csv';

// Issue 34: the same prefix rule as the backend's exports (`qoe_analysis.io.csv_cells`).
describe('formula starts behind invisible characters or in full-width form', () => {
  const hidden = ['\u200b=1+1', '\ufeff@SUM(A1)', '\u2060\u200b-2+3', '\uff1dcmd', '\uff0b1', '\uff20x', '\u3000\uff0dx', ' =x', '\u00a0=x', ' \tx', '=\u0338x'];

  it('escapes them as the backend does', () => {
    for (const text of hidden) expect(escapeTextCell(text), JSON.stringify(text)).toBe(`'${text}`);
    expect(toCSV(['game'], [['\u200b=cmd']])).toBe("game\r\n'\u200b=cmd\r\n");
  });

  it('leaves plain names alone', () => {
    for (const text of ['\u200bGran Turismo', '\uff21', '\u22121', 'a=b', ' ', '']) expect(escapeTextCell(text)).toBe(text);
  });

  it('names the normalised start', () => {
    expect(formulaStart('\ufeff\uff1dx')).toBe('=');
    expect(formulaStart('\u001c@x')).toBe('@'); // a separator Python counts as white space
    expect(formulaStart('x=')).toBeNull();
  });

  it('reads the backend export of such names back', () => {
    expect(parseCSVRecords("game,rating\n'\u200b=x,4\n''\uff1dy,3\n'\u200bz,2\n")).toEqual([
      { game: '\u200b=x', rating: '4' },
      { game: "'\uff1dy", rating: '3' },
      { game: "'\u200bz", rating: '2' },
    ]);
    for (const text of [...hidden, "'\u200b=x", "''\uff1d"]) expect(unescapeTextCell(escapeTextCell(text))).toBe(text);
  });
});
