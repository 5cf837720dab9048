import { sql, type SQL } from 'drizzle-orm';
import type { CoreDeps } from '../caches/caches.js';
import { bucketOf, type ListCounts, totalsByKey } from '../support/tallies.js';
import { DAY_MS, HOUR_MS, type TimeRange } from '../support/time-range.js';

/** What a count of traces selects: the tenant's, optionally one agent's, one outcome's, a range of `started_at`. */
export interface TraceCountFilters extends Partial<TimeRange> {
  agent_id?: string;
  outcome?: string;
}

/**
 * What `countTraces` counts by: nothing (under the key `all`), the decision, or the UTC day or
 * hour of `started_at` (under the bucket's number since the epoch).
 */
export type TraceCountKey = 'all' | 'decision' | 'day' | 'hour';

const keyOf = (by: TraceCountKey, bucket: 'day' | 'hour' | 'started_at'): SQL => {
  if (by === 'all') return sql.raw(`'all'`);
  if (by === 'decision') return sql.raw('decision::text');
  return bucketOf(by, bucket);
};

/**
 * How many traces the filters select, exactly, per key. The days a range covers whole are read
 * from the day tallies (unless counted per hour), the other hours it covers whole from the hour
 * tallies, the changes not folded yet for all of those, and the parts of an hour it cuts at
 * either end from the traces. One statement, so one snapshot: a trace written meanwhile is
 * counted wholly or not at all. The cost grows with the days and agents the range spans, not
 * with the traces.
 */
export async function countTraces(
  deps: CoreDeps,
  tenantId: string,
  filters: TraceCountFilters,
  by: TraceCountKey = 'all',
): Promise<Map<string, number>> {
  return totalsByKey(deps.database, countStatement(tenantId, filters, by));
}

/** The statement of `countTraces`: `key` and `total`; with a `window`, of its part from `start` to `end` (left out), SQL timestamps. */
function countStatement(tenantId: string, filters: TraceCountFilters, by: TraceCountKey, window?: { start: SQL; end: SQL }): SQL {
  const { days, hours, changes, cut } = splitRange(filters, by !== 'hour');
  const common = [sql`tenant_id = ${tenantId}`];
  if (filters.agent_id) common.push(sql`agent_id = ${filters.agent_id}`);
  if (filters.outcome) common.push(sql`final_outcome = ${filters.outcome}`);
  const where = (column: 'day' | 'hour' | 'started_at', conditions: SQL[]) =>
    sql.join(
      [...common, ...conditions, ...(window ? [sql`${sql.raw(column)} >= ${window.start} and ${sql.raw(column)} < ${window.end}`] : [])],
      sql` and `,
    );
  const parts = [
    ...(days ? [sql`select ${keyOf(by, 'day')} as key, traces from trace_day_tallies where ${where('day', within('day', days))}`] : []),
    ...hours.map((span) => sql`select ${keyOf(by, 'hour')} as key, traces from trace_tallies where ${where('hour', within('hour', span))}`),
    ...(changes
      ? [sql`select ${keyOf(by, 'hour')} as key, traces from trace_tally_changes where ${where('hour', within('hour', changes))}`]
      : []),
    ...cut.map(
      (range) =>
        sql`select ${keyOf(by, 'started_at')} as key, count(*) as traces from traces where ${where('started_at', [range])} group by 1`,
    ),
  ];
  return sql`select key, sum(traces) as total from (${sql.join(parts, sql` union all `)}) counted group by key`;
}

/** The total of `countTraces` without a breakdown. */
export async function traceTotal(deps: CoreDeps, tenantId: string, filters: TraceCountFilters): Promise<number> {
  return (await countTraces(deps, tenantId, filters)).get('all') ?? 0;
}

/** The traces list's counts per day of the whole range, and per hour of its part in a window. */
export function traceListCounts(tenantId: string, filters: TraceCountFilters): ListCounts {
  return {
    perDay: countStatement(tenantId, filters, 'day'),
    perHour: (start, end) => countStatement(tenantId, filters, 'hour', { start, end }),
  };
}

/** Tally buckets from `first` up to `end` (left out); an open side is unbounded. */
interface Span {
  first?: Date;
  end?: Date;
}

const within = (bucket: 'hour' | 'day', { first, end }: Span): SQL[] => [
  ...(first ? [sql`${sql.raw(bucket)} >= ${first.toISOString()}::timestamptz`] : []),
  ...(end ? [sql`${sql.raw(bucket)} < ${end.toISOString()}::timestamptz`] : []),
];

const ceilTo = (unit: number, at: Date) => new Date(Math.ceil(at.getTime() / unit) * unit);
const floorTo = (unit: number, at: Date) => new Date(Math.floor(at.getTime() / unit) * unit);

/**
 * A range of `started_at` in the pieces `countTraces` reads: the whole hours, from the first
 * starting at or after `from` to the start of the hour `to` falls in (`changes`, none when the
 * range lies within an hour or two); of those, the whole days (`days`, if `wholeDays`) and the
 * hours before and after them (`hours`); and the parts of hours the range cuts, as conditions
 * on `started_at`.
 */
function splitRange(
  { from, to }: Partial<TimeRange>,
  wholeDays: boolean,
): { days: Span | null; hours: Span[]; changes: Span | null; cut: SQL[] } {
  const firstHour = from && ceilTo(HOUR_MS, from);
  const endHour = to && floorTo(HOUR_MS, to);
  if (from && to && firstHour! >= endHour!) return { days: null, hours: [], changes: null, cut: [rangeOf(from, to, false)] };
  const cut: SQL[] = [];
  if (from && firstHour! > from) cut.push(rangeOf(from, firstHour!, true));
  // The hour `to` falls in is cut, even when `to` is its first instant.
  if (to) cut.push(rangeOf(endHour!, to, false));
  const changes = { ...(firstHour ? { first: firstHour } : {}), ...(endHour ? { end: endHour } : {}) };
  const firstDay = firstHour && ceilTo(DAY_MS, firstHour);
  const endDay = endHour && floorTo(DAY_MS, endHour);
  if (!wholeDays || (firstHour && endHour && firstDay! >= endDay!)) return { days: null, hours: [changes], changes, cut };
  const hours: Span[] = [];
  if (firstHour && firstHour < firstDay!) hours.push({ first: firstHour, end: firstDay! });
  if (endHour && endDay! < endHour) hours.push({ first: endDay!, end: endHour });
  return { days: { ...(firstDay ? { first: firstDay } : {}), ...(endDay ? { end: endDay } : {}) }, hours, changes, cut };
}

/** `started_at` from `start` to `end`, the end left out when `endOpen` (a whole hour's start) and kept otherwise (the range's own `to`). */
const rangeOf = (start: Date, end: Date, endOpen: boolean) =>
  sql`started_at >= ${start.toISOString()}::timestamptz and started_at ${sql.raw(endOpen ? '<' : '<=')} ${end.toISOString()}::timestamptz`;
