import { sql } from 'drizzle-orm';
import type { CoreDeps } from '../caches/caches.js';

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
  const conditions = [sql`tenant_id = ${tenantId}`];
  if (filters.agent_id) conditions.push(sql`agent_id = ${filters.agent_id}`);
  if (filters.status) conditions.push(sql`status = ${filters.status}`);
  const where = sql.join(conditions, sql` and `);
  const rows = await deps.database.rows<{ status: string; total: string | number }>(sql`
    select status, sum(approvals) as total from (
      select status, approvals from approval_tallies where ${where}
      union all select status, approvals from approval_tally_changes where ${where}
    ) counted group by status`);
  return new Map(rows.map((row) => [row.status, Number(row.total)]));
}

/** The total of `approvalCounts` over every status it selects. */
export async function approvalTotal(deps: CoreDeps, tenantId: string, filters: ApprovalCountFilters): Promise<number> {
  let total = 0;
  for (const counted of (await approvalCounts(deps, tenantId, filters)).values()) total += counted;
  return total;
}
