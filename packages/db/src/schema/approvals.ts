import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { at, createdAt, id } from './columns.js';
import { tenants, users } from './identity.js';

/**
 * One reviewer's vote, as the request keeps it. `identity` is who cast it (`identityOf`),
 * `counts_as` whose vote it is: the same person, or the reviewer who delegated their votes to
 * them. Neither is ever shown; `principal` and `on_behalf_of` name them as the trail does.
 */
export interface ApprovalVote {
  decision: 'approve' | 'deny';
  identity: string;
  counts_as: string;
  principal: string;
  on_behalf_of: string | null;
  approver_name: string;
  decision_note: string | null;
  at: string;
}

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
    /** When escalation recipients are told if still pending (the rule's `escalate_after_seconds`); null never. */
    escalateAt: at('escalate_at'),
    /** When the escalation was sent; set once, by the conditional UPDATE in approvals/escalation.ts. */
    escalatedAt: at('escalated_at'),
    requestedAt: at('requested_at').notNull(),
    decidedAt: at('decided_at'),
    approverName: text('approver_name'),
    decisionNote: text('decision_note'),
    /** How many distinct people must approve: the deciding rule's `approvals_required` when it queued the request. */
    approvalsRequired: integer('approvals_required').notNull().default(1),
    /** Every vote cast, in order; the request is locked while one is added. */
    votes: jsonb('votes').$type<ApprovalVote[]>().notNull().default([]),
  },
  (t) => [
    index('approval_requests_tenant_status').on(t.tenantId, t.status, t.requestedAt),
    // The list of every status, newest first: its page is read from here, with no sort.
    index('approval_requests_tenant_requested').on(t.tenantId, t.requestedAt, t.id),
    index('approval_requests_trace').on(t.traceId),
    index('approval_requests_pending_expiry').on(t.expiresAt).where(sql`${t.status} = 'pending'`),
  ],
);

export type ApprovalRow = typeof approvalRequests.$inferSelect;

/** A reviewer's votes cast by another reviewer for a period (recorded; each vote names both). */
export const voteDelegations = pgTable(
  'vote_delegations',
  {
    id: id(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    delegatorId: uuid('delegator_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    delegateId: uuid('delegate_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    startsAt: at('starts_at').notNull(),
    endsAt: at('ends_at').notNull(),
    reason: text('reason'),
    createdAt: createdAt(),
    revokedAt: at('revoked_at'),
  },
  (t) => [index('vote_delegations_delegate').on(t.tenantId, t.delegateId, t.endsAt)],
);

export type VoteDelegationRow = typeof voteDelegations.$inferSelect;

/*
 * How many approval requests each tenant's agents have per status: the exact totals of the
 * approvals list, its count and the agent detail, kept as the trace tallies are (traces.ts):
 * triggers write each change to `approval_tally_changes`, with the hour (UTC) of its request's
 * `requested_at`, and the `tally_fold` job adds them into the tallies of all time, of the hour
 * and of the day. A total reads the first; a deep page of the list finds where it starts from
 * the others.
 */
const approvalTallyColumns = () => ({
  tenantId: uuid('tenant_id').notNull(),
  agentId: uuid('agent_id').notNull(),
  status: text('status').notNull(),
  approvals: bigint('approvals', { mode: 'number' }).notNull(),
});

export const approvalTallies = pgTable('approval_tallies', approvalTallyColumns(), (t) => [
  primaryKey({ name: 'approval_tallies_pkey', columns: [t.tenantId, t.agentId, t.status] }),
]);

export const approvalHourTallies = pgTable('approval_hour_tallies', { ...approvalTallyColumns(), hour: at('hour').notNull() }, (t) => [
  primaryKey({ name: 'approval_hour_tallies_pkey', columns: [t.tenantId, t.hour, t.agentId, t.status] }),
]);

export const approvalDayTallies = pgTable('approval_day_tallies', { ...approvalTallyColumns(), day: at('day').notNull() }, (t) => [
  primaryKey({ name: 'approval_day_tallies_pkey', columns: [t.tenantId, t.day, t.agentId, t.status] }),
]);

export const approvalTallyChanges = pgTable('approval_tally_changes', { ...approvalTallyColumns(), hour: at('hour').notNull() });
