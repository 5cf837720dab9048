import { and, eq } from 'drizzle-orm';
import { approvalRequests } from '@agov/db';
import type { CoreDeps } from '../caches/caches.js';
import type { DueEffect } from '../outbox/effects.js';
import { completeEffect, postponeEffect } from '../outbox/record.js';
import { expireApproval } from './decisions.js';

/**
 * The expiry effect evaluate records for each approval, due at its `expires_at`. A request
 * decided meanwhile is left alone; one this process's clock does not yet see as due is
 * looked at again at its `expires_at`.
 */
export async function expireOnSchedule(deps: CoreDeps, row: DueEffect<'approval_expiry'>): Promise<void> {
  const { approval_id: approvalId } = row.payload;
  if (!(await expireApproval(deps, row.tenantId, approvalId))) {
    const [approval] = await deps.database.db
      .select({ status: approvalRequests.status, expiresAt: approvalRequests.expiresAt })
      .from(approvalRequests)
      .where(and(eq(approvalRequests.id, approvalId), eq(approvalRequests.tenantId, row.tenantId)));
    if (approval?.status === 'pending') return postponeEffect(deps.database.db, row.id, approval.expiresAt);
  }
  await completeEffect(deps.database.db, row.id);
}
