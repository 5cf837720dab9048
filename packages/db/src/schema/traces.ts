import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { at, id } from './columns.js';

/*
 * Audit tables are append-only and written on every evaluate. They carry no foreign keys to
 * tenants or agents: each referential check would lock the same hot tenant and agent rows in
 * every concurrent evaluation, and an audit trail must never vanish through a cascade. The
 * references are sound by construction: one statement writes a trace with its events, and
 * tenant and agent come from the authenticated request; neither is ever hard-deleted.
 */

export const traces = pgTable(
  'traces',
  {
    id: id(),
    tenantId: uuid('tenant_id').notNull(),
    agentId: uuid('agent_id').notNull(),
    agentName: text('agent_name').notNull(),
    authorityModel: text('authority_model').notNull(),
    requestedOperation: text('requested_operation').notNull(),
    targetIntegration: text('target_integration').notNull(),
    resourceScope: text('resource_scope').notNull(),
    dataClassification: text('data_classification').notNull(),
    parentTraceId: uuid('parent_trace_id'),
    decision: text('decision', { enum: ['allow', 'approval_required', 'deny'] }).notNull(),
    policyRuleId: uuid('policy_rule_id'),
    policyVersion: integer('policy_version'),
    /** The agent's state it was decided in (`agent_states`); null for traces written before migration 0021. */
    agentStateId: bigint('agent_state_id', { mode: 'number' }),
    finalOutcome: text('final_outcome', {
      enum: ['in_progress', 'executed', 'blocked', 'denied', 'completed_with_approval', 'expired'],
    }).notNull(),
    hasApproval: boolean('has_approval').notNull().default(false),
    /** Whether the agent has recorded its outcome; accepted once per trace. */
    outcomeRecorded: boolean('outcome_recorded').notNull().default(false),
    /** Head of the hash chain: appending an event reads and moves these under the row lock. */
    eventCount: integer('event_count').notNull(),
    lastEventHash: text('last_event_hash').notNull(),
    startedAt: at('started_at').notNull(),
    completedAt: at('completed_at'),
  },
  (t) => [
    // started_at then id: the list's order and the export's keyset.
    index('traces_tenant_started').on(t.tenantId, t.startedAt, t.id),
    index('traces_tenant_agent_started').on(t.tenantId, t.agentId, t.startedAt),
  ],
);

export const traceEvents = pgTable(
  'trace_events',
  {
    id: uuid('id').notNull(),
    tenantId: uuid('tenant_id').notNull(),
    traceId: uuid('trace_id').notNull(),
    /** Position in the trace's chain, from 1. */
    seq: integer('seq').notNull(),
    eventType: text('event_type').notNull(),
    actorType: text('actor_type').notNull(),
    actorName: text('actor_name').notNull(),
    description: text('description').notNull(),
    status: text('status').notNull(),
    timestamp: at('timestamp').notNull(),
    policyVersion: integer('policy_version'),
    approvalRequestId: uuid('approval_request_id'),
    metadata: jsonb('metadata').$type<Record<string, unknown> | null>(),
    integrityHash: text('integrity_hash'),
  },
  (t) => [
    primaryKey({ name: 'trace_events_pkey', columns: [t.traceId, t.seq] }),
    // The audit export's order and keyset.
    index('trace_events_tenant_time').on(t.tenantId, t.timestamp, t.traceId, t.seq),
  ],
);

/**
 * The evaluations a shadow rule would have decided otherwise: written with the trace, in the
 * same statement, only when the decision with the shadow rules enforced differs from the one
 * made. Audit-like, so without foreign keys for the same reasons as the tables above.
 */
export const shadowDecisions = pgTable(
  'shadow_decisions',
  {
    traceId: uuid('trace_id').notNull(),
    tenantId: uuid('tenant_id').notNull(),
    agentId: uuid('agent_id').notNull(),
    /** The shadow rule that decided once shadow rules were enforced. */
    policyRuleId: uuid('policy_rule_id').notNull(),
    /** What was decided, and what the shadow rule would have decided. */
    decision: text('decision', { enum: ['allow', 'approval_required', 'deny'] }).notNull(),
    shadowDecision: text('shadow_decision', { enum: ['allow', 'approval_required', 'deny'] }).notNull(),
    recordedAt: at('recorded_at').notNull(),
  },
  // The shadow report's window and order, per tenant: the only index, so that evaluate writes one
  // entry per row, at the index's right edge (a trace's id is unique, so the key is too).
  (t) => [primaryKey({ name: 'shadow_decisions_pkey', columns: [t.tenantId, t.recordedAt, t.traceId] })],
);

export type TraceRow = typeof traces.$inferSelect;
export type TraceEventRow = typeof traceEvents.$inferSelect;
export type ShadowDecisionRow = typeof shadowDecisions.$inferSelect;

/*
 * How many traces each tenant's agents have, per hour of `started_at` (UTC), decision and
 * outcome, and the same per day: the exact totals of the lists and the agent detail, without
 * counting the history. Triggers on `traces` (migration 0018) write every change to
 * `trace_tally_changes` (per hour) in the writer's transaction, as rows to add up, so that
 * concurrent evaluations and outcomes never wait on one tally row; the `tally_fold` job adds
 * them into both tallies. A total is the tallies plus the changes not yet folded, read in one
 * statement: exact at any moment, whether or not the worker keeps up.
 */
const tallyOwner = () => ({ tenantId: uuid('tenant_id').notNull(), agentId: uuid('agent_id').notNull() });
const tallyCounts = () => ({
  decision: text('decision').notNull(),
  finalOutcome: text('final_outcome').notNull(),
  traces: bigint('traces', { mode: 'number' }).notNull(),
});

export const traceTallies = pgTable('trace_tallies', { ...tallyOwner(), hour: at('hour').notNull(), ...tallyCounts() }, (t) => [
  primaryKey({ name: 'trace_tallies_pkey', columns: [t.tenantId, t.hour, t.agentId, t.decision, t.finalOutcome] }),
]);

export const traceDayTallies = pgTable('trace_day_tallies', { ...tallyOwner(), day: at('day').notNull(), ...tallyCounts() }, (t) => [
  primaryKey({ name: 'trace_day_tallies_pkey', columns: [t.tenantId, t.day, t.agentId, t.decision, t.finalOutcome] }),
]);

export const traceTallyChanges = pgTable('trace_tally_changes', { ...tallyOwner(), hour: at('hour').notNull(), ...tallyCounts() });
