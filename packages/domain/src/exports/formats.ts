import { stringify } from 'csv-stringify/sync';

export type Cell = string | number | boolean | null;

// A spreadsheet would run a cell starting with these as a formula (CSV injection).
const FORMULA_START = /^[=+\-@\t\r]/;

/** CONTRACT: null is an empty cell, booleans are true/false, formula-like text gets a `'`. */
function cell(value: Cell): string | null {
  if (value === null) return null;
  const text = typeof value === 'boolean' ? (value ? 'true' : 'false') : String(value);
  return FORMULA_START.test(text) ? `'${text}` : text;
}

const CSV_OPTIONS = {
  record_delimiter: 'windows',
  // RFC 4180 quotes a field holding a line break; the library only quotes its own delimiter.
  quoted_match: /[\r\n]/,
} as const;

/** RFC 4180 CSV: a header line, then each page of rows as it arrives. */
export async function* csvChunks<Column extends string>(
  columns: readonly Column[],
  pages: AsyncIterable<readonly Record<Column, Cell>[]>,
): AsyncGenerator<string> {
  yield stringify([columns], CSV_OPTIONS);
  for await (const page of pages) {
    if (page.length > 0)
      yield stringify(
        page.map((row) => columns.map((column) => cell(row[column]))),
        CSV_OPTIONS,
      );
  }
}

/** A bare JSON array, written page by page. */
export async function* jsonArrayChunks(pages: AsyncIterable<readonly unknown[]>): AsyncGenerator<string> {
  let separator = '';
  yield '[';
  for await (const page of pages) {
    if (page.length === 0) continue;
    yield separator + page.map((row) => JSON.stringify(row)).join(',');
    separator = ',';
  }
  yield ']';
}
