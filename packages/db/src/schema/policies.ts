import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { agents } from './agents.js';
import { at, createdAt, id } from './columns.js';
import { tenants } from './identity.js';

/** The matching and effect fields a rule and each of its version records share. */
const ruleFields = () => ({
  policyName: text('policy_name').notNull(),
  targetIntegration: text('target_integration').notNull(),
  operation: text('operation').notNull(),
  resourceScope: text('resource_scope').notNull(),
  dataClassification: text('data_classification').notNull(),
  policyEffect: text('policy_effect', { enum: ['allow', 'approval_required', 'deny'] }).notNull(),
  rationale: text('rationale').notNull(),
  priority: integer('priority').notNull(),
  conditions: jsonb('conditions').$type<Record<string, unknown> | null>(),
  maxSessionTtl: integer('max_session_ttl'),
  /** How many distinct people must approve a request this rule queues (1–5). */
  approvalsRequired: integer('approvals_required').notNull().default(1),
  /** Seconds a request this rule queues may stay pending before escalation recipients are told; null never. */
  escalateAfterSeconds: integer('escalate_after_seconds'),
  /** `shadow`: evaluated beside every decision and recorded when it would change it, but never deciding. */
  mode: text('mode', { enum: ['enforce', 'shadow'] })
    .notNull()
    .default('enforce'),
  modifiedBy: text('modified_by').notNull(),
  modifiedAt: at('modified_at').notNull(),
});

export const policyRules = pgTable(
  'policy_rules',
  {
    id: id(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    ...ruleFields(),
    isActive: boolean('is_active').notNull().default(true),
    policyVersion: integer('policy_version').notNull().default(1),
    createdAt: createdAt(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('policy_rules_active_by_agent').on(t.tenantId, t.agentId).where(sql`${t.isActive}`),
    index('policy_rules_tenant').on(t.tenantId, t.createdAt),
  ],
);

export const policyVersions = pgTable(
  'policy_versions',
  {
    id: id(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    policyRuleId: uuid('policy_rule_id')
      .notNull()
      .references(() => policyRules.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    ...ruleFields(),
    changeSummary: text('change_summary'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('policy_versions_rule_version').on(t.policyRuleId, t.version)],
);

export type PolicyRuleRow = typeof policyRules.$inferSelect;
export type PolicyVersionRow = typeof policyVersions.$inferSelect;
