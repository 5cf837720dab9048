import { and, count, desc, getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Database, Db, Executor } from '@agov/db';
import { rowAt, type ListCounts } from './tallies.js';

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
 * over more than half an hour's rows however deep it lies. Locating costs a count per day, a
 * few milliseconds at a million traces (docs/benchmarks.md, "Third lever" and after).
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
 * One page of a tallied list with its exact total. A shallow page is read beside the total. A
 * deep one is read with its total in one statement, so one snapshot: the tallies locate the
 * hour holding its first row (`rowAt`), and the list's index finds that row from whichever end
 * of the hour is nearer; the page is exactly the one its offset names at that snapshot.
 */
export async function talliedPage<T extends PgTable>(
  database: Database,
  list: TalliedList<T>,
  page: Page,
): Promise<Paged<T['$inferSelect']>> {
  const { db } = database;
  if (page.offset < LOCATED_FROM_OFFSET) {
    const [items, total] = await Promise.all([shallowRows(db, list, page), list.total()]);
    return { items, total };
  }
  const located = db
    .$with('located', {
      total: sql<number>`total`.mapWith(Number).as('total'),
      firstTime: sql`first_time`.as('first_time'),
      firstId: sql`first_id`.as('first_id'),
    })
    .as(firstRowAt(list, page.offset));
  const rows = db
    .select()
    .from(list.table as PgTable)
    .where(and(...list.where, sql`(${list.time}, ${list.id}) <= (${located.firstTime}, ${located.firstId})`))
    .orderBy(...newestFirst(list))
    .limit(page.limit)
    .as('page');
  const row: Record<string, PgColumn> = Object.fromEntries(
    Object.keys(getTableColumns(list.table)).map((key) => [key, rows[key as keyof typeof rows] as PgColumn]),
  );
  // The page joins the one row of its total, so that a page past the end still carries it (with
  // a null row). Prepared, once per connection and set of filters: parsing and planning it took
  // about as long as running it (docs/benchmarks.md, "Fifth lever").
  const read = await db
    .with(located)
    .select({ total: located.total, row })
    .from(located)
    .leftJoinLateral(rows, sql`true`)
    .prepare('tallied_page')
    .execute();
  const items = read.flatMap(({ row }) => (row === null ? [] : [row as T['$inferSelect']]));
  return { items, total: read[0]!.total };
}

/** The list's order, newest first: by time, then by id among rows of the same time. */
const newestFirst = <T extends PgTable>(list: TalliedList<T>) => [desc(list.time), desc(list.id)];

/**
 * A page less than `LOCATED_FROM_OFFSET` deep: its first row is found on the list's index,
 * after `offset` entries, and the table is read only from there.
 */
function shallowRows<T extends PgTable>(executor: Executor, list: TalliedList<T>, page: Page): Promise<T['$inferSelect'][]> {
  const where = and(...list.where);
  const orderBy = newestFirst(list);
  if (page.offset === 0) return pageRows(executor, list.table, where, orderBy, page);
  const first = sql`select ${list.time}, ${list.id} from ${list.table} where ${where}
    order by ${sql.join(orderBy, sql`, `)} offset ${page.offset} limit 1`;
  return pageRows(executor, list.table, and(where, sql`(${list.time}, ${list.id}) <= (${first})`), orderBy, {
    limit: page.limit,
    offset: 0,
  });
}

/**
 * A statement of a list's total and of the time and id of its row `offset` deep (null past the
 * last row). The row is found on the list's index, from the end of its hour or from the start,
 * whichever it is nearer: at most half an hour's entries are passed over (7 000 at ten million
 * traces over 30 days), each an index entry, not a row.
 */
function firstRowAt<T extends PgTable>(list: TalliedList<T>, offset: number): SQL {
  const where = and(...list.where);
  const hourEnd = sql`(select hour_start + interval '1 hour' from at)`;
  return sql`
    with at as (${rowAt(list.counts, offset)}),
    first as (
      (select ${list.time} as first_time, ${list.id} as first_id from ${list.table}
        where ${where} and ${list.time} < ${hourEnd} and (select newer <= older from at)
        order by ${sql.join(newestFirst(list), sql`, `)} offset (select newer from at) limit 1)
      union all
      (select ${list.time}, ${list.id} from ${list.table}
        where ${where} and ${list.time} >= (select hour_start from at) and ${list.time} < ${hourEnd} and (select newer > older from at)
        order by ${list.time}, ${list.id} offset (select older from at) limit 1)
    )
    select (select total from at) as total, (select first_time from first) as first_time, (select first_id from first) as first_id`;
}
