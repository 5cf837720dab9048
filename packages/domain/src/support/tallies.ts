import { sql } from 'drizzle-orm';
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

/** Where a page of a list (newest first) starts: the rows before `before`, `skip` of them passed over. */
export interface PageStart {
  before: Date;
  skip: number;
}

/** One UTC day, from its first instant to the next day's (left out). */
export interface Day {
  start: Date;
  end: Date;
}

/**
 * A list's counts per UTC day, or per hour of one day, each keyed by its bucket's number since
 * the epoch. Read from tallies by day and by hour, they cost what the days and hours cost, not
 * the rows.
 */
export type CountsPer = (unit: 'day' | 'hour', day?: Day) => Promise<ReadonlyMap<string, number>>;

/**
 * Where a list's page `offset` rows deep begins, found from its tallies rather than by walking
 * `offset` rows: the day holding that row from the counts per day, then its hour from that
 * day's counts per hour, so the page walks at most one hour's rows. `start` is null past the
 * last row. `total` is the sum of the days: the list's total, read with the start.
 */
export async function locatePage(countsPer: CountsPer, offset: number): Promise<{ total: number; start: PageStart | null }> {
  const perDay = await countsPer('day');
  const total = [...perDay.values()].reduce((sum, rows) => sum + rows, 0);
  const day = bucketHolding(perDay, offset);
  if (!day) return { total, start: null };
  const start = new Date(day.bucket * DAY_MS);
  const end = new Date(start.getTime() + DAY_MS);
  const hoursPerDay = DAY_MS / HOUR_MS;
  const ofDay = new Map(
    [...(await countsPer('hour', { start, end }))].filter(([hour]) => Math.floor(Number(hour) / hoursPerDay) === day.bucket),
  );
  const hour = bucketHolding(ofDay, offset - day.newer);
  // Where the counts are not one snapshot (embedded), a write in between may leave the day's
  // hours short of the day: the page then walks the whole day.
  if (!hour) return { total, start: { before: end, skip: offset - day.newer } };
  return { total, start: { before: new Date((hour.bucket + 1) * HOUR_MS), skip: offset - day.newer - hour.newer } };
}

/** The bucket holding the row `offset` deep, newest first, and how many rows the newer buckets hold; null past the last. */
function bucketHolding(counts: ReadonlyMap<string, number>, offset: number): { bucket: number; newer: number } | null {
  const newestFirst = [...counts].map(([key, rows]) => ({ bucket: Number(key), rows })).sort((a, b) => b.bucket - a.bucket);
  let newer = 0;
  for (const { bucket, rows } of newestFirst) {
    if (newer + rows > offset) return { bucket, newer };
    newer += rows;
  }
  return null;
}

/** A column's UTC day or hour as its number since the epoch, as text: the key of `CountsPer`. */
export const bucketOf = (unit: 'day' | 'hour', column: string) =>
  sql.raw(`floor(extract(epoch from ${column}) / ${(unit === 'day' ? DAY_MS : HOUR_MS) / 1000})::bigint::text`);
