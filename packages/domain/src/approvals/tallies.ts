import { sql, type SQL } from 'drizzle-orm';
import type { CoreDeps } from '../caches/caches.js';
import { bucketOf, type ListCounts, totalsByKey } from '../support/tallies.js';

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
  return totalsByKey(
    deps.database,
    sql`
    select status as key, sum(approvals) as total from (
      select status, approvals from approval_tallies where ${where}
      union all select status, approvals from approval_tally_changes where ${where}
    ) counted group by status`,
  );
}

const filtered = (tenantId: string, filters: ApprovalCountFilters): SQL => {
  const conditions = [sql`tenant_id = ${tenantId}`];
  if (filters.agent_id) conditions.push(sql`agent_id = ${filters.agent_id}`);
  if (filters.status) conditions.push(sql`status = ${filters.status}`);
  return sql.join(conditions, sql` and `);
};

/**
 * The approvals list's counts per day of `requested_at` and per hour of a window, from the
 * tallies by day and hour with the changes not folded yet.
 */
export function approvalListCounts(tenantId: string, filters: ApprovalCountFilters): ListCounts {
  const statement = (unit: 'day' | 'hour', window?: SQL) => {
    const where = sql.join([filtered(tenantId, filters), ...(window ? [window] : [])], sql` and `);
    return sql`select key, sum(approvals) as total from (
      select ${bucketOf(unit, unit)} as key, approvals from ${sql.raw(`approval_${unit}_tallies`)} where ${where}
      union all select ${bucketOf(unit, 'hour')} as key, approvals from approval_tally_changes where ${where}
    ) counted group by key`;
  };
  return {
    perDay: statement('day'),
    perHour: (start, end) => statement('hour', sql`hour >= ${start} and hour < ${end}`),
  };
}

/** The total of `approvalCounts` over every status it selects. */
export async function approvalTotal(deps: CoreDeps, tenantId: string, filters: ApprovalCountFilters): Promise<number> {
  let total = 0;
  for (const counted of (await approvalCounts(deps, tenantId, filters)).values()) total += counted;
  return total;
}
