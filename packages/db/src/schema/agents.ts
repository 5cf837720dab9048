import { index, integer, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
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
    createdAt: createdAt(),
  },
  (t) => [index('agents_tenant').on(t.tenantId, t.createdAt)],
);

export type AgentRow = typeof agents.$inferSelect;
