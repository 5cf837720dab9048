import { ilike, or, type AnyColumn, type SQL } from 'drizzle-orm';

/**
 * A case-insensitive substring match of `term` on any of `columns`. LIKE's own wildcards and
 * its escape character in the term are escaped, so a search for "50%" finds "50%" only.
 */
export function textSearch(term: string | undefined, columns: readonly AnyColumn[]): SQL | undefined {
  if (term === undefined || term === '') return undefined;
  const pattern = `%${term.replace(/[\\%_]/g, '\\$&')}%`;
  return or(...columns.map((column) => ilike(column, pattern)));
}
