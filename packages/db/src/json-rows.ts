import { getTableColumns, getTableName, type Table } from 'drizzle-orm';

/**
 * Writes whole rows of a table from one JSON parameter, so that one constant statement inserts
 * any number of rows and PostgreSQL, not the application, does the parsing. Each row is an
 * array of the table's column values in a fixed order: a row's keys, repeated in every row and
 * longer than most of its values, are neither sent nor matched. Every column is written (a
 * missing value is NULL, not its default), which the full row type enforces.
 */
export function jsonRows<T extends Table>(
  table: T,
): { insert(parameter: string): string; encode(rows: readonly T['$inferSelect'][]): string } {
  const columns = Object.entries(getTableColumns(table));
  const keys = columns.map(([key]) => key);
  const names = columns.map(([, column]) => `"${column.name}"`).join(', ');
  // `->>` gives a scalar's text, cast to the column's type, and NULL for a JSON null; `->` keeps
  // a jsonb value whole, and a JSON null there is NULL as well, as in every other column.
  const values = columns
    .map(([, column], i) => (column.getSQLType() === 'jsonb' ? `nullif(r->${i}, 'null'::jsonb)` : `(r->>${i})::${column.getSQLType()}`))
    .join(', ');
  return {
    insert: (parameter) =>
      `insert into "${getTableName(table)}" (${names}) select ${values} from jsonb_array_elements(${parameter}::jsonb) r`,
    encode(rows) {
      // The rows of one evaluation share one instant (one Date): its text is worked out once,
      // not once per row; two fifths of the encoding was the same toJSON over again.
      let lastDate: Date | null = null;
      let lastText: string | null = null;
      const written = (value: unknown) => {
        if (!(value instanceof Date)) return value;
        if (value !== lastDate) {
          lastDate = value;
          lastText = value.toJSON();
        }
        return lastText;
      };
      return JSON.stringify(rows.map((row) => keys.map((key) => written((row as Record<string, unknown>)[key]))));
    },
  };
}
