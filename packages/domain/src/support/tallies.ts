import { sql, type SQL } from 'drizzle-orm';
import type { Database, Executor } from '@agov/db';
import { DAY_MS, HOUR_MS } from './time-range.js';

/**
 * The tallies kept by triggers (migrations 0018–0020): each writes its changes as rows to add
 * up, and a total reads the tallies and the changes together. Folding a table's changes is one
 * statement: a change is either still a change or already in its tallies, for every reader.
 * Folds running at once each take the changes the other did not (the second waits on the
 * first's deleted rows, then skips them).
 */
const FOLDS = [
  // A trace's change goes into its hour's tally and its day's.
  sql`
    with moved as (delete from trace_tally_changes returning *),
    hours as (
      insert into trace_tallies (tenant_id, hour, agent_id, decision, final_outcome, traces)
      select tenant_id, hour, agent_id, decision, final_outcome, sum(traces) from moved group by 1, 2, 3, 4, 5
      on conflict (tenant_id, hour, agent_id, decision, final_outcome) do update set traces = trace_tallies.traces + excluded.traces
    ),
    days as (
      insert into trace_day_tallies (tenant_id, day, agent_id, decision, final_outcome, traces)
      select tenant_id, date_trunc('day', hour, 'UTC'), agent_id, decision, final_outcome, sum(traces) from moved group by 1, 2, 3, 4, 5
      on conflict (tenant_id, day, agent_id, decision, final_outcome) do update set traces = trace_day_tallies.traces + excluded.traces
    )
    select count(*) as changes from moved`,
  // A request's change goes into the tally of all time, its hour's and its day's.
  sql`
    with moved as (delete from approval_tally_changes returning *),
    added as (
      insert into approval_tallies (tenant_id, agent_id, status, approvals)
      select tenant_id, agent_id, status, sum(approvals) from moved group by 1, 2, 3
      on conflict (tenant_id, agent_id, status) do update set approvals = approval_tallies.approvals + excluded.approvals
    ),
    hours as (
      insert into approval_hour_tallies (tenant_id, hour, agent_id, status, approvals)
      select tenant_id, hour, agent_id, status, sum(approvals) from moved group by 1, 2, 3, 4
      on conflict (tenant_id, hour, agent_id, status) do update set approvals = approval_hour_tallies.approvals + excluded.approvals
    ),
    days as (
      insert into approval_day_tallies (tenant_id, day, agent_id, status, approvals)
      select tenant_id, date_trunc('day', hour, 'UTC'), agent_id, status, sum(approvals) from moved group by 1, 2, 3, 4
      on conflict (tenant_id, day, agent_id, status) do update set approvals = approval_day_tallies.approvals + excluded.approvals
    )
    select count(*) as changes from moved`,
];

/** Adds the changes written since the last fold into their tallies; answers how many it folded. */
export async function foldTallies(deps: { database: Pick<Database, 'rows'> }): Promise<number> {
  let folded = 0;
  for (const fold of FOLDS) {
    const [row] = await deps.database.rows<{ changes: string | number }>(fold);
    folded += Number(row?.changes ?? 0);
  }
  return folded;
}

/** Reads a statement of `key` and `total` rows as each key's total. */
export async function totalsByKey(database: Pick<Database, 'rows'>, statement: SQL, executor?: Executor): Promise<Map<string, number>> {
  const rows = await database.rows<{ key: string; total: string | number }>(statement, executor);
  return new Map(rows.map((row) => [row.key, Number(row.total)]));
}

/** One UTC day, from its first instant to the next day's (left out). */
export interface Day {
  start: Date;
  end: Date;
}

/**
 * A list's counts, read from tallies by day and by hour, so that they cost what the days and
 * hours cost, not the rows. Each is keyed by its bucket's number since the epoch, as text.
 */
export interface ListCounts {
  /** The counts per UTC day of the whole list. */
  perDay(executor: Executor): Promise<ReadonlyMap<string, number>>;
  /** A statement of the counts per hour of the list's part in `day`, as `key` and `total`. */
  perHour(day: Day): SQL;
}

/** The day holding the row a page starts at, and how many of that day's rows come before it. */
export interface DayOfPage {
  day: Day;
  skip: number;
}

/**
 * The day holding the row `offset` deep in a list (newest first), from its counts per day;
 * null past the last row. `total` is the sum of the days: the list's total, read with it.
 */
export async function dayOfPage(
  counts: ListCounts,
  offset: number,
  executor: Executor,
): Promise<{ total: number; start: DayOfPage | null }> {
  const perDay = await counts.perDay(executor);
  const total = [...perDay.values()].reduce((sum, rows) => sum + rows, 0);
  const newestFirst = [...perDay].map(([key, rows]) => ({ day: Number(key), rows })).sort((a, b) => b.day - a.day);
  let newer = 0;
  for (const { day, rows } of newestFirst) {
    if (newer + rows > offset) {
      const start = new Date(day * DAY_MS);
      return { total, start: { day: { start, end: new Date(start.getTime() + DAY_MS) }, skip: offset - newer } };
    }
    newer += rows;
  }
  return { total, start: null };
}

/**
 * A statement of where, in the day of `start`, the page begins: the end of the hour holding
 * the day's row `start.skip` deep (from the day's counts per hour), as `before`, and how many
 * of the rows before it the page passes over, as `skip`. So the page passes over at most that
 * hour's rows. Where the counts are not one snapshot (embedded), a write in between may leave
 * the day's hours short of the day: the page then starts at the day's end.
 */
export function hourOfPage(counts: ListCounts, { day, skip }: DayOfPage): SQL {
  const hoursPerDay = DAY_MS / HOUR_MS;
  return sql`
    with counts as (${counts.perHour(day)}),
    running as (
      select key::bigint as hour, total::bigint as rows, sum(total::bigint) over (order by key::bigint desc) as through
      from counts where key::bigint / ${hoursPerDay} = ${day.start.getTime() / DAY_MS}
    ),
    holding as (select hour, through - rows as newer from running where through > ${skip}::bigint order by hour desc limit 1)
    select coalesce((select to_timestamp((hour + 1) * ${HOUR_MS / 1000}) from holding), ${day.end.toISOString()}::timestamptz) as before,
      (${skip}::bigint - coalesce((select newer from holding), 0))::bigint as skip`;
}

/** A column's UTC day or hour as its number since the epoch, as text: the key of `ListCounts`. */
export const bucketOf = (unit: 'day' | 'hour', column: string) =>
  sql.raw(`floor(extract(epoch from ${column}) / ${(unit === 'day' ? DAY_MS : HOUR_MS) / 1000})::bigint::text`);
