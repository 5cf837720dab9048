import { getTableColumns, getTableName, type Table } from 'drizzle-orm';

/**
 * Writes whole rows of a table from one JSON parameter: `jsonb_populate_recordset` turns the
 * JSON into rows of the table's own type, so one constant statement inserts any number of
 * rows and PostgreSQL, not the application, does the parsing. Every column must be present
 * in each row (a missing one would be NULL, not its default), which the full row type enforces.
 */
export function jsonRows<T extends Table>(table: T): { name: string; encode(rows: readonly T['$inferSelect'][]): string } {
  const columns = Object.entries(getTableColumns(table)).map(([key, column]) => [key, column.name] as const);
  return {
    name: getTableName(table),
    encode(rows) {
      return JSON.stringify(
        rows.map((row) => {
          const record: Record<string, unknown> = {};
          for (const [key, name] of columns) record[name] = (row as Record<string, unknown>)[key];
          return record;
        }),
      );
    },
  };
}
