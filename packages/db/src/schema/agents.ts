import { bigint, index, integer, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { at, createdAt, id } from './columns.js';
import { tenants } from './identity.js';

export interface AuthorizedIntegration {
  name: string;
  resource_scope: string;
  data_classification: string;
  allowed_operations: string[];
}

export const agents = pgTable(
  'agents',
  {
    id: id(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description').notNull(),
    ownerName: text('owner_name').notNull(),
    ownerRole: text('owner_role').notNull(),
    team: text('team').notNull(),
    environment: text('environment').notNull(),
    authorityModel: text('authority_model').notNull(),
    identityMode: text('identity_mode').notNull(),
    delegationModel: text('delegation_model').notNull(),
    autonomyTier: text('autonomy_tier').notNull(),
    authorizedIntegrations: jsonb('authorized_integrations').$type<AuthorizedIntegration[]>().notNull(),
    credentialConfig: jsonb('credential_config').$type<Record<string, unknown> | null>(),
    metadata: jsonb('metadata').$type<Record<string, unknown> | null>(),
    nextReviewDate: text('next_review_date').notNull(),
    createdBy: text('created_by').notNull(),
    /** Who created the agent as the service authenticated them (`identityOf`), unlike the client-written `created_by`; null before it was recorded. */
    createdByIdentity: text('created_by_identity'),
    modifiedBy: text('modified_by').notNull(),
    modifiedAt: at('modified_at').notNull(),
    lifecycleState: text('lifecycle_state', { enum: ['active', 'suspended', 'revoked'] })
      .notNull()
      .default('active'),
    /** The most evaluations a minute this agent is let through before `throttleEffect` applies; null: no limit. */
    maxRequestsPerMinute: integer('max_requests_per_minute'),
    /** The same, counting only evaluations of one identical action (its action digest): the loop guard. */
    maxIdenticalRequestsPerMinute: integer('max_identical_requests_per_minute'),
    throttleEffect: text('throttle_effect', { enum: ['approval_required', 'deny'] })
      .notNull()
      .default('deny'),
    /**
     * The agent's row in `agent_states`, set by the trigger `agents_state` on every insert and on
     * every update that changes a state field; what the column holds before that is never stored.
     */
    stateId: bigint('state_id', { mode: 'number' }).notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [index('agents_tenant').on(t.tenantId, t.createdAt)],
);

/*
 * Every state an agent has been in: the fields that decide beside its rules (`lifecycle_state`,
 * `authority_model`, `identity_mode`, `delegation_model`, `autonomy_tier`, `environment`), one
 * row per change, written by the trigger `agents_state` (migration 0021) in the transaction of
 * the change. A trace names the state it was decided in (`traces.agent_state_id`), so the
 * what-if finds it without reading the trace's events. Like the traces that name them, these
 * rows are part of the record: no foreign key, so no cascade can take them (and the trigger
 * writes a new agent's first state before the agent's row exists).
 */
export const agentStates = pgTable(
  'agent_states',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: uuid('tenant_id').notNull(),
    agentId: uuid('agent_id').notNull(),
    lifecycleState: text('lifecycle_state').notNull(),
    authorityModel: text('authority_model').notNull(),
    identityMode: text('identity_mode').notNull(),
    delegationModel: text('delegation_model').notNull(),
    autonomyTier: text('autonomy_tier').notNull(),
    environment: text('environment').notNull(),
  },
  (t) => [index('agent_states_tenant').on(t.tenantId, t.agentId)],
);

export type AgentRow = typeof agents.$inferSelect;
