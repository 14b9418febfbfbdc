/** CSV out (every chart's "Download CSV") and in (the study's tidy ratings export). */

export type Cell = string | number | boolean | null | undefined;

/** First characters that make a spreadsheet run a cell as a formula (OWASP, "CSV Injection"). */
const FORMULA_STARTS = '=+-@\t\r';
/** Python's `str.isspace()` beyond JavaScript's `\s`: the separators U+001C–U+001F and U+0085. */
const MORE_SPACE = new Set(['\u001c', '\u001d', '\u001e', '\u001f', '\u0085']);
const SPACE_OR_FORMAT = /^[\s\p{Cf}]$/u;

/**
 * The formula start a text begins with, or `null` — the rule of `qoe_analysis.io.csv_cells`
 * (`formula_start`), which the tidy export applies: leading white space and invisible format
 * characters (Unicode Cf: U+200B, U+FEFF, U+2060 …) are skipped and each character is
 * NFKC-normalised on its own, so `\u200b=x` and a full-width `＝x` start with `=`.
 */
export function formulaStart(text: string): string | null {
  for (const char of text) {
    for (const normal of char.normalize('NFKC')) {
      if (FORMULA_STARTS.includes(normal)) return normal;
      if (!SPACE_OR_FORMAT.test(normal) && !MORE_SPACE.has(normal)) return null;
    }
  }
  return null;
}

const needsQuote = (text: string): boolean => formulaStart(text.replace(/^'+/, '')) !== null;

/**
 * A text cell as written: prefixed with `'` when a spreadsheet would run it as a formula
 * (`=cmd|' /C calc'!A0`, also behind invisible characters or full-width). Reversible, like the
 * backend's tidy export (`qoe_analysis.io.csv_cells`): text that already starts with quotes
 * before such a start gets one more. Numbers are never escaped.
 */
export function escapeTextCell(text: string): string {
  return needsQuote(text) ? `'${text}` : text;
}

/** The inverse of {@link escapeTextCell}; other cells come back unchanged. */
export function unescapeTextCell(text: string): string {
  return text.startsWith("'") && needsQuote(text) ? text.slice(1) : text;
}

function quote(cell: Cell): string {
  if (cell === null || cell === undefined) return '';
  const text =
    typeof cell === 'number' ? (Number.isFinite(cell) ? String(cell) : '') : escapeTextCell(String(cell));
  return /[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** RFC 4180 CSV with a header row; `null`/`undefined`/non-finite numbers become empty cells, text
 * cells are escaped against spreadsheet formulas. */
export function toCSV(header: readonly string[], rows: readonly (readonly Cell[])[]): string {
  return [header, ...rows].map((row) => row.map(quote).join(',')).join('\r\n') + '\r\n';
}

/** Parses RFC 4180 CSV (quoted fields, doubled quotes, CRLF or LF) into rows of strings. */
export function parseCSV(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charAt(i);
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 1;
        } else quoted = false;
      } else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i += 1;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => !(r.length === 1 && r[0] === ''));
}

/** CSV text → objects keyed by the header, text cells un-escaped ({@link unescapeTextCell}). */
export function parseCSVRecords(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCSV(text.replace(/^\uFEFF/, ''));
  if (!header) return [];
  return rows.map((r) => Object.fromEntries(header.map((h, i) => [h, unescapeTextCell(r[i] ?? '')])));
}

/** Saves `data` as a file in the browser. */
export function download(filename: string, data: Blob | string, type = 'text/csv;charset=utf-8'): void {
  const blob = typeof data === 'string' ? new Blob([data], { type }) : data;
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => {
    URL.revokeObjectURL(url);
  }, 1000);
}

export function downloadDataURL(filename: string, dataURL: string): void {
  const a = document.createElement('a');
  a.href = dataURL;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
}
