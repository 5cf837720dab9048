import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { at, id } from './columns.js';

// Written by evaluate in the same statement as its trace: no foreign keys (see traces.ts).

export const approvalRequests = pgTable(
  'approval_requests',
  {
    id: id(),
    tenantId: uuid('tenant_id').notNull(),
    traceId: uuid('trace_id').notNull(),
    agentId: uuid('agent_id').notNull(),
    policyRuleId: uuid('policy_rule_id'),
    requestedOperation: text('requested_operation').notNull(),
    targetIntegration: text('target_integration').notNull(),
    resourceScope: text('resource_scope').notNull(),
    dataClassification: text('data_classification').notNull(),
    riskClassification: text('risk_classification', { enum: ['low', 'medium', 'high', 'critical'] }).notNull(),
    authorityModel: text('authority_model').notNull(),
    delegatedFrom: text('delegated_from').notNull(),
    policyEffect: text('policy_effect').notNull().default('approval_required'),
    flagReason: text('flag_reason').notNull(),
    status: text('status', { enum: ['pending', 'approved', 'denied', 'expired'] })
      .notNull()
      .default('pending'),
    /** Who called evaluate for this request, as the service authenticated them (`identityOf`); null before it was recorded. */
    requestedByIdentity: text('requested_by_identity'),
    contextSnapshot: jsonb('context_snapshot').$type<Record<string, unknown>>().notNull(),
    /** `actionDigest` of the action and its context, as evaluate computed it (README, "Action digest"). */
    actionDigest: text('action_digest').notNull(),
    expiresAt: at('expires_at').notNull(),
    requestedAt: at('requested_at').notNull(),
    decidedAt: at('decided_at'),
    approverName: text('approver_name'),
    decisionNote: text('decision_note'),
  },
  (t) => [
    index('approval_requests_tenant_status').on(t.tenantId, t.status, t.requestedAt),
    index('approval_requests_trace').on(t.traceId),
    index('approval_requests_pending_expiry').on(t.expiresAt).where(sql`${t.status} = 'pending'`),
  ],
);

export type ApprovalRow = typeof approvalRequests.$inferSelect;
