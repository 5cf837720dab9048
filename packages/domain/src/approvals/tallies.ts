import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '@agov/db';
import type { CoreDeps } from '../caches/caches.js';
import { bucketOf, locatePage, type PageStart } from '../support/tallies.js';

/** What a count of approval requests selects besides the tenant: one agent's, one status's. */
export interface ApprovalCountFilters {
  agent_id?: string;
  status?: string;
}

/**
 * How many of the tenant's approval requests the filters select, per status, exactly: the
 * tallies and the changes not folded yet (migration 0018, support/tallies.ts), in one
 * statement. The cost grows with the tenant's agents, not with its requests.
 */
export async function approvalCounts(deps: CoreDeps, tenantId: string, filters: ApprovalCountFilters): Promise<Map<string, number>> {
  const where = filtered(tenantId, filters);
  const rows = await deps.database.rows<{ status: string; total: string | number }>(sql`
    select status, sum(approvals) as total from (
      select status, approvals from approval_tallies where ${where}
      union all select status, approvals from approval_tally_changes where ${where}
    ) counted group by status`);
  return new Map(rows.map((row) => [row.status, Number(row.total)]));
}

const filtered = (tenantId: string, filters: ApprovalCountFilters): SQL => {
  const conditions = [sql`tenant_id = ${tenantId}`];
  if (filters.agent_id) conditions.push(sql`agent_id = ${filters.agent_id}`);
  if (filters.status) conditions.push(sql`status = ${filters.status}`);
  return sql.join(conditions, sql` and `);
};

/**
 * Where the approvals list's page `offset` requests deep begins (`locatePage`), from the
 * tallies per day of `requested_at` and per hour of one day, with the changes not folded yet.
 */
export function locateApprovalPage(
  deps: CoreDeps,
  tenantId: string,
  filters: ApprovalCountFilters,
  offset: number,
  executor?: Executor,
): Promise<{ total: number; start: PageStart | null }> {
  return locatePage(async (unit, day) => {
    const conditions = [filtered(tenantId, filters)];
    if (day) conditions.push(sql`hour >= ${day.start.toISOString()}::timestamptz and hour < ${day.end.toISOString()}::timestamptz`);
    const where = sql.join(conditions, sql` and `);
    const rows = await deps.database.rows<{ key: string; total: string | number }>(
      sql`select key, sum(approvals) as total from (
        select ${bucketOf(unit, unit)} as key, approvals from ${sql.raw(`approval_${unit}_tallies`)} where ${where}
        union all select ${bucketOf(unit, 'hour')} as key, approvals from approval_tally_changes where ${where}
      ) counted group by key`,
      executor,
    );
    return new Map(rows.map((row) => [row.key, Number(row.total)]));
  }, offset);
}

/** The total of `approvalCounts` over every status it selects. */
export async function approvalTotal(deps: CoreDeps, tenantId: string, filters: ApprovalCountFilters): Promise<number> {
  let total = 0;
  for (const counted of (await approvalCounts(deps, tenantId, filters)).values()) total += counted;
  return total;
}
