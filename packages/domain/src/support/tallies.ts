import { sql, type SQL } from 'drizzle-orm';
import type { Database } from '@agov/db';
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
export async function totalsByKey(database: Pick<Database, 'rows'>, statement: SQL): Promise<Map<string, number>> {
  const rows = await database.rows<{ key: string; total: string | number }>(statement);
  return new Map(rows.map((row) => [row.key, Number(row.total)]));
}

/**
 * A list's counts, read from tallies by day and by hour, so that they cost what the days and
 * hours cost, not the rows. Each is a statement of `key` (its bucket's number since the epoch,
 * as text) and `total`.
 */
export interface ListCounts {
  /** The counts per UTC day of the whole list. */
  perDay: SQL;
  /** The counts per hour of the list's part from `start` to `end` (left out), both SQL timestamps. */
  perHour(start: SQL, end: SQL): SQL;
}

/**
 * A statement of where a list's row `offset` deep (newest first) lies: the list's `total`, and
 * the hour holding that row (its first instant as `hour_start`, null past the last row) with
 * how many of the hour's rows come before it, newest first (`newer`) and oldest first
 * (`older`). The day comes from the counts per day, then the hour from that day's counts per
 * hour; one statement, so one snapshot, on either database.
 */
export function rowAt(counts: ListCounts, offset: number): SQL {
  const day = sql`(select bucket from day_of_row)`;
  const dayStart = sql`to_timestamp(${day} * ${DAY_MS / 1000})`;
  const dayEnd = sql`to_timestamp((${day} + 1) * ${DAY_MS / 1000})`;
  return sql`
    with days as (${newestFirst(counts.perDay)}),
    day_of_row as (
      select bucket, ${offset}::bigint - (through - rows) as skip from days where through > ${offset}::bigint order by bucket desc limit 1
    ),
    hours as (${newestFirst(counts.perHour(dayStart, dayEnd))}),
    hour_of_row as (
      select bucket, rows, (select skip from day_of_row) - (through - rows) as newer
      from hours where through > (select skip from day_of_row) order by bucket desc limit 1
    )
    select (select coalesce(sum(rows), 0) from days)::bigint as total,
      to_timestamp(bucket * ${HOUR_MS / 1000}) as hour_start, newer, rows - 1 - newer as older
    from (select 1) one left join hour_of_row on true`;
}

/** Buckets of a statement of counts, newest first, with how many rows the bucket and those newer hold (`through`). */
const newestFirst = (counts: SQL) => sql`
  select key::bigint as bucket, total::bigint as rows, sum(total::bigint) over (order by key::bigint desc) as through
  from (${counts}) counted`;

/** A column's UTC day or hour as its number since the epoch, as text: the key of `ListCounts`. */
export const bucketOf = (unit: 'day' | 'hour', column: string) =>
  sql.raw(`floor(extract(epoch from ${column}) / ${(unit === 'day' ? DAY_MS : HOUR_MS) / 1000})::bigint::text`);
