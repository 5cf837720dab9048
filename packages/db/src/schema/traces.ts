import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { agents } from './agents.js';
import { at, id } from './columns.js';
import { tenants } from './identity.js';

export const traces = pgTable(
  'traces',
  {
    id: id(),
    tenantId: uuid('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    agentId: uuid('agent_id').notNull().references(() => agents.id, { onDelete: 'cascade' }),
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
    index('traces_tenant_started').on(t.tenantId, t.startedAt),
    index('traces_tenant_agent_started').on(t.tenantId, t.agentId, t.startedAt),
  ],
);

export const traceEvents = pgTable(
  'trace_events',
  {
    id: id(),
    tenantId: uuid('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    traceId: uuid('trace_id').notNull().references(() => traces.id, { onDelete: 'cascade' }),
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
    uniqueIndex('trace_events_trace_seq').on(t.traceId, t.seq),
    index('trace_events_tenant_time').on(t.tenantId, t.timestamp),
  ],
);
