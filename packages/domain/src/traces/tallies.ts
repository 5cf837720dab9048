import { sql, type SQL } from 'drizzle-orm';
import type { CoreDeps } from '../caches/caches.js';
import type { TimeRange } from '../support/time-range.js';

const HOUR_MS = 60 * 60 * 1000;

/** What a count of traces selects: the tenant's, optionally one agent's, one outcome's, a range of `started_at`. */
export interface TraceCountFilters extends Partial<TimeRange> {
  agent_id?: string;
  outcome?: string;
}

/**
 * How many traces the filters select, exactly, per decision when `byDecision` (else under the
 * key `all`). The hours a range covers whole are read from the tallies (those folded, and the
 * changes not folded yet); the parts of an hour it cuts at either end are counted from the
 * traces. One statement, so one snapshot: a trace written meanwhile is counted wholly or not
 * at all. The cost grows with the hours and agents the range spans, not with the traces.
 */
export async function countTraces(
  deps: CoreDeps,
  tenantId: string,
  filters: TraceCountFilters,
  byDecision = false,
): Promise<Map<string, number>> {
  const { whole, cut } = splitByHour(filters);
  const common = [sql`tenant_id = ${tenantId}`];
  if (filters.agent_id) common.push(sql`agent_id = ${filters.agent_id}`);
  if (filters.outcome) common.push(sql`final_outcome = ${filters.outcome}`);
  const key = byDecision ? sql.raw('decision') : sql.raw(`'all'`);
  const hours = [...common];
  if (whole?.first) hours.push(sql`hour >= ${whole.first.toISOString()}::timestamptz`);
  if (whole?.end) hours.push(sql`hour < ${whole.end.toISOString()}::timestamptz`);
  const parts = [
    ...(whole
      ? [
          sql`select ${key} as key, traces from trace_tallies where ${sql.join(hours, sql` and `)}`,
          sql`select ${key} as key, traces from trace_tally_changes where ${sql.join(hours, sql` and `)}`,
        ]
      : []),
    ...cut.map(
      (range) => sql`select ${key} as key, count(*) as traces from traces where ${sql.join([...common, range], sql` and `)} group by 1`,
    ),
  ];
  const rows = await deps.database.rows<{ key: string; total: string | number }>(
    sql`select key, sum(traces) as total from (${sql.join(parts, sql` union all `)}) counted group by key`,
  );
  return new Map(rows.map((row) => [row.key, Number(row.total)]));
}

/**
 * The hours a range of `started_at` covers whole, from `first` (the first hour starting at or
 * after `from`) to `end` (the start of the hour `to` falls in), none when the range lies within
 * an hour or two; and the parts of hours it cuts, as conditions on `started_at`.
 */
function splitByHour({ from, to }: Partial<TimeRange>): { whole: { first?: Date; end?: Date } | null; cut: SQL[] } {
  const first = from && new Date(Math.ceil(from.getTime() / HOUR_MS) * HOUR_MS);
  const end = to && new Date(Math.floor(to.getTime() / HOUR_MS) * HOUR_MS);
  if (from && to && first! >= end!) return { whole: null, cut: [rangeOf(from, to, false)] };
  const cut: SQL[] = [];
  if (from && first! > from) cut.push(rangeOf(from, first!, true));
  // The hour `to` falls in is cut, even when `to` is its first instant.
  if (to) cut.push(rangeOf(end!, to, false));
  return { whole: { ...(first ? { first } : {}), ...(end ? { end } : {}) }, cut };
}

/** `started_at` from `start` to `end`, the end left out when `endOpen` (a whole hour's start) and kept otherwise (the range's own `to`). */
const rangeOf = (start: Date, end: Date, endOpen: boolean) =>
  sql`started_at >= ${start.toISOString()}::timestamptz and started_at ${sql.raw(endOpen ? '<' : '<=')} ${end.toISOString()}::timestamptz`;

/** The total of `countTraces` without a breakdown. */
export async function traceTotal(deps: CoreDeps, tenantId: string, filters: TraceCountFilters): Promise<number> {
  return (await countTraces(deps, tenantId, filters)).get('all') ?? 0;
}
