import { and, count, desc, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Database, Db, Executor } from '@agov/db';
import { dayOfPage, hourOfPage, type ListCounts } from './tallies.js';

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
 * From this offset on, a tallied list's page is found from its tallies, so that no page passes
 * over more than one hour's rows however deep it lies. Locating costs a count per day and a
 * snapshot's transaction, a few milliseconds at a million traces (docs/benchmarks.md, "Third
 * lever" and after).
 */
const LOCATED_FROM_OFFSET = 1_000;

/** A list, newest first by `time` then `id`, whose total and deep pages come from tallies (traces, approval requests). */
export interface TalliedList<T extends PgTable> {
  table: T;
  where: SQL[];
  time: PgColumn;
  id: PgColumn;
  total(): Promise<number>;
  counts: ListCounts;
}

/**
 * One page of a tallied list with its exact total. A shallow page is read beside the total; a
 * deep one starts where the tallies locate it (the day from the counts per day, then the hour
 * in the page's own statement), and is read with its total in one snapshot
 * (`Database.readSnapshot`), so it is exactly the page its offset names then.
 */
export async function talliedPage<T extends PgTable>(
  database: Database,
  list: TalliedList<T>,
  page: Page,
): Promise<Paged<T['$inferSelect']>> {
  if (page.offset < LOCATED_FROM_OFFSET) {
    const [items, total] = await Promise.all([listRows(database.db, list, page.limit, page.offset), list.total()]);
    return { items, total };
  }
  return database.readSnapshot(async (executor) => {
    const { total, start } = await dayOfPage(list.counts, page.offset, executor);
    if (!start) return { items: [], total };
    return { items: await listRows(executor, list, page.limit, hourOfPage(list.counts, start)), total };
  });
}

/**
 * `limit` rows of a tallied list, in its order, from `start`: after the first `start` rows it
 * selects, or from a statement of `before` and `skip` (`hourOfPage`), after the first `skip`
 * of those before `before`. The statement finds the page's first row by its time and id, which
 * the list's index holds, and reads the table only from there: the rows passed over cost an
 * index entry each, not a row (up to an hour's rows for a located page, 14 000 at ten million
 * traces over 30 days).
 */
function listRows<T extends PgTable>(executor: Executor, list: TalliedList<T>, limit: number, start: number | SQL) {
  const orderBy = [desc(list.time), desc(list.id)];
  const where = and(...list.where);
  if (start === 0) return pageRows(executor, list.table, where, orderBy, { limit, offset: 0 });
  const first =
    typeof start === 'number'
      ? sql`select ${list.time}, ${list.id} from ${list.table} where ${where}
          order by ${list.time} desc, ${list.id} desc offset ${start} limit 1`
      : sql`with start as (${start})
          select ${list.time}, ${list.id} from ${list.table} where ${where} and ${list.time} < (select before from start)
          order by ${list.time} desc, ${list.id} desc offset (select skip from start) limit 1`;
  return pageRows(executor, list.table, and(where, sql`(${list.time}, ${list.id}) <= (${first})`), orderBy, { limit, offset: 0 });
}
