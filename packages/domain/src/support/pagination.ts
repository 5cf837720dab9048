import { count, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Db } from '@agov/db';

export interface Page {
  limit: number;
  offset: number;
}

export interface Paged<T> {
  items: T[];
  total: number;
}

/** One page of a table's rows in the given order, with the total that `where` selects. */
export async function pageOf<T extends PgTable>(
  db: Db,
  table: T,
  where: SQL | undefined,
  orderBy: (PgColumn | SQL)[],
  page: Page,
): Promise<Paged<T['$inferSelect']>> {
  const [items, [counted]] = await Promise.all([
    pageRows(db, table, where, orderBy, page),
    db
      .select({ total: count() })
      .from(table as PgTable)
      .where(where),
  ]);
  return { items, total: counted?.total ?? 0 };
}

/** One page of a table's rows in the given order, for a list whose total is kept apart (traces: their tallies). */
export async function pageRows<T extends PgTable>(
  db: Db,
  table: T,
  where: SQL | undefined,
  orderBy: (PgColumn | SQL)[],
  page: Page,
): Promise<T['$inferSelect'][]> {
  const items = await db
    .select()
    .from(table as PgTable)
    .where(where)
    .orderBy(...orderBy)
    .limit(page.limit)
    .offset(page.offset);
  return items as T['$inferSelect'][];
}
