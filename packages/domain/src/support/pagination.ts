import { and, count, desc, lt, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Database, Db, Executor } from '@agov/db';
import type { PageStart } from './tallies.js';

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
  db: Executor,
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

/**
 * From this offset on, a tallied list's page is found from its tallies, so that no page walks
 * more than one hour's rows however deep it lies. Locating costs two small counts in a
 * transaction, 4–7 ms at a million traces, about what walking 13 000 rows costs: the pages
 * between pay that for the bound (docs/benchmarks.md, "Third lever").
 */
const LOCATED_FROM_OFFSET = 1_000;

/** A list, newest first by `time` then `id`, whose total and deep pages come from tallies (traces, approval requests). */
export interface TalliedList<T extends PgTable> {
  table: T;
  where: SQL[];
  time: PgColumn;
  id: PgColumn;
  total(): Promise<number>;
  locate(offset: number, executor: Executor): Promise<{ total: number; start: PageStart | null }>;
}

/**
 * One page of a tallied list with its exact total. A shallow page is read beside the total; a
 * deep one starts where the tallies locate it, and is read with its total in one snapshot
 * (`Database.readSnapshot`), so it is exactly the page its offset names then.
 */
export async function talliedPage<T extends PgTable>(
  database: Database,
  list: TalliedList<T>,
  page: Page,
): Promise<Paged<T['$inferSelect']>> {
  if (page.offset < LOCATED_FROM_OFFSET) {
    const [items, total] = await Promise.all([listRows(database.db, list, list.where, page.offset, page.limit), list.total()]);
    return { items, total };
  }
  return database.readSnapshot(async (executor) => {
    const { total, start } = await list.locate(page.offset, executor);
    if (!start) return { items: [], total };
    return { items: await listRows(executor, list, [...list.where, lt(list.time, start.before)], start.skip, page.limit), total };
  });
}

/**
 * `limit` rows of a tallied list, in its order, after the first `skip` that `where` selects.
 * The statement finds the page's first row by its time and id, which the list's index holds,
 * and reads the table only from there: the rows passed over cost an index entry each, not a row
 * (up to an hour's rows for a located page, 14 000 at ten million traces over 30 days).
 */
function listRows<T extends PgTable>(executor: Executor, list: TalliedList<T>, where: SQL[], skip: number, limit: number) {
  const orderBy = [desc(list.time), desc(list.id)];
  if (skip === 0) return pageRows(executor, list.table, and(...where), orderBy, { limit, offset: 0 });
  const first = sql`(${list.time}, ${list.id}) <= (select ${list.time}, ${list.id} from ${list.table}
    where ${and(...where)} order by ${list.time} desc, ${list.id} desc offset ${skip} limit 1)`;
  return pageRows(executor, list.table, and(...list.where, first), orderBy, { limit, offset: 0 });
}
