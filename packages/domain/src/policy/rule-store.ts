import { isDeepStrictEqual } from 'node:util';
import { and, desc, eq, type SQL } from 'drizzle-orm';
import { agents, policyRules, policyVersions, type Tx, type PolicyRuleRow, type PolicyVersionRow } from '@agov/db';
import { actorName, type Principal } from '../access/access.js';
import { textSearch } from '../agents/search.js';
import type { DataClassification } from '../agents/vocabulary.js';
import type { CoreDeps } from '../caches/caches.js';
import { notFound } from '../support/errors.js';
import { transactionInvalidating, type Invalidate } from '../caches/invalidation.js';
import { recordEffects } from '../outbox/record.js';
import { pageOf, type Page, type Paged } from '../support/pagination.js';
import { presentPolicy } from '../presenters/policies.js';
import { assertValidConditions } from './conditions.js';

export const POLICY_EFFECTS = ['allow', 'approval_required', 'deny'] as const;

/** The fields a PATCH may change; each change is recorded as a new version. */
export interface PolicyRuleEdit {
  policy_name: string;
  target_integration: string;
  operation: string;
  resource_scope: string;
  data_classification: DataClassification;
  policy_effect: (typeof POLICY_EFFECTS)[number];
  rationale: string;
  priority: number;
  conditions: Record<string, unknown> | null;
  max_session_ttl: number | null;
}

export interface PolicyRuleInput extends PolicyRuleEdit {
  agent_id: string;
  modified_by: string;
  modified_at: string;
}

export type PolicyRulePatch = Partial<PolicyRuleEdit>;

export interface PolicyRuleFilters {
  agent_id?: string;
  effect?: PolicyRuleEdit['policy_effect'];
  data_classification?: DataClassification;
  is_active?: boolean;
  search?: string;
}

/** Each editable field and the column that holds it, in the order change summaries name them. */
const EDITABLE = [
  ['conditions', 'conditions'],
  ['data_classification', 'dataClassification'],
  ['max_session_ttl', 'maxSessionTtl'],
  ['operation', 'operation'],
  ['policy_effect', 'policyEffect'],
  ['policy_name', 'policyName'],
  ['priority', 'priority'],
  ['rationale', 'rationale'],
  ['resource_scope', 'resourceScope'],
  ['target_integration', 'targetIntegration'],
] as const satisfies readonly (readonly [keyof PolicyRuleEdit, keyof PolicyRuleRow])[];

type EditColumns = Pick<typeof policyRules.$inferInsert, (typeof EDITABLE)[number][1]>;

function toColumns(input: PolicyRuleEdit): EditColumns;
function toColumns(input: PolicyRulePatch): Partial<EditColumns>;
function toColumns(input: PolicyRulePatch): Partial<EditColumns> {
  return {
    policyName: input.policy_name,
    targetIntegration: input.target_integration,
    operation: input.operation,
    resourceScope: input.resource_scope,
    dataClassification: input.data_classification,
    policyEffect: input.policy_effect,
    rationale: input.rationale,
    priority: input.priority,
    conditions: input.conditions,
    maxSessionTtl: input.max_session_ttl,
  };
}

const ruleInTenant = (principal: Principal, id: string): SQL => and(eq(policyRules.id, id), eq(policyRules.tenantId, principal.tenantId))!;

/** The version record holding a rule's current state. */
const versionOf = (rule: PolicyRuleRow, changeSummary: string, now: Date): typeof policyVersions.$inferInsert => ({
  tenantId: rule.tenantId,
  policyRuleId: rule.id,
  version: rule.policyVersion,
  policyName: rule.policyName,
  targetIntegration: rule.targetIntegration,
  operation: rule.operation,
  resourceScope: rule.resourceScope,
  dataClassification: rule.dataClassification,
  policyEffect: rule.policyEffect,
  rationale: rule.rationale,
  priority: rule.priority,
  conditions: rule.conditions,
  maxSessionTtl: rule.maxSessionTtl,
  modifiedBy: rule.modifiedBy,
  modifiedAt: rule.modifiedAt,
  changeSummary,
  createdAt: now,
});

/** Every rule change tells webhook subscribers, and drops the agent's cached decision inputs. */
async function announce(tx: Tx, invalidate: Invalidate, rule: PolicyRuleRow, change: 'created' | 'updated' | 'deleted', now: Date) {
  await recordEffects(
    tx,
    rule.tenantId,
    [{ kind: 'webhook', event: 'policy.updated', data: { policy: presentPolicy(rule), change } }],
    now,
  );
  invalidate({ kind: 'agent', id: rule.agentId });
}

export async function createPolicyRule(deps: CoreDeps, principal: Principal, input: PolicyRuleInput): Promise<PolicyRuleRow> {
  if (input.conditions !== null) assertValidConditions(input.conditions);
  const now = deps.clock.now();
  return transactionInvalidating(deps, async (tx, invalidate) => {
    const [agent] = await tx
      .select({ id: agents.id })
      .from(agents)
      .where(and(eq(agents.id, input.agent_id), eq(agents.tenantId, principal.tenantId)));
    if (!agent) throw notFound('Agent');
    const [rule] = await tx
      .insert(policyRules)
      .values({
        ...toColumns(input),
        tenantId: principal.tenantId,
        agentId: agent.id,
        modifiedBy: input.modified_by,
        modifiedAt: new Date(input.modified_at),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await tx.insert(policyVersions).values(versionOf(rule!, 'Created', now));
    await announce(tx, invalidate, rule!, 'created', now);
    return rule!;
  });
}

export async function listPolicyRules(
  deps: CoreDeps,
  principal: Principal,
  filters: PolicyRuleFilters,
  page: Page,
): Promise<Paged<PolicyRuleRow>> {
  const { db } = deps.database;
  const where = and(
    eq(policyRules.tenantId, principal.tenantId),
    filters.agent_id === undefined ? undefined : eq(policyRules.agentId, filters.agent_id),
    filters.effect === undefined ? undefined : eq(policyRules.policyEffect, filters.effect),
    filters.data_classification === undefined ? undefined : eq(policyRules.dataClassification, filters.data_classification),
    filters.is_active === undefined ? undefined : eq(policyRules.isActive, filters.is_active),
    textSearch(filters.search, [policyRules.policyName, policyRules.rationale]),
  );
  return pageOf(db, policyRules, where, [desc(policyRules.createdAt), desc(policyRules.id)], page);
}

/** A rule of the tenant, active or not: soft-deleted rules stay readable. */
export async function getPolicyRule(deps: CoreDeps, principal: Principal, id: string): Promise<PolicyRuleRow> {
  const [rule] = await deps.database.db.select().from(policyRules).where(ruleInTenant(principal, id));
  if (!rule) throw notFound('Policy rule');
  return rule;
}

/**
 * Applies the given fields as the next version. The row lock serialises concurrent updates
 * of one rule, so each gets its own version number and version record.
 */
export async function updatePolicyRule(deps: CoreDeps, principal: Principal, id: string, patch: PolicyRulePatch): Promise<PolicyRuleRow> {
  if (patch.conditions !== undefined && patch.conditions !== null) assertValidConditions(patch.conditions);
  const now = deps.clock.now();
  return transactionInvalidating(deps, async (tx, invalidate) => {
    const [current] = await tx.select().from(policyRules).where(ruleInTenant(principal, id)).for('update');
    if (!current) throw notFound('Policy rule');
    const changed = EDITABLE.filter(([field, column]) => patch[field] !== undefined && !isDeepStrictEqual(patch[field], current[column]));
    const [rule] = await tx
      .update(policyRules)
      .set({
        ...toColumns(patch),
        policyVersion: current.policyVersion + 1,
        modifiedBy: actorName(principal),
        modifiedAt: now,
        updatedAt: now,
      })
      .where(eq(policyRules.id, current.id))
      .returning();
    const summary = changed.length === 0 ? 'No field values changed' : `Changed ${changed.map(([field]) => field).join(', ')}`;
    await tx.insert(policyVersions).values(versionOf(rule!, summary, now));
    await announce(tx, invalidate, rule!, 'updated', now);
    return rule!;
  });
}

/**
 * Soft delete: the rule stays stored and readable but is no longer evaluated. Its version
 * does not change. Deactivating an inactive rule changes nothing and sends no `policy.updated`;
 * it still drops the agent's cached decision inputs in every process, which costs one notice
 * and can only make them fresher.
 */
export async function deactivatePolicyRule(deps: CoreDeps, principal: Principal, id: string): Promise<PolicyRuleRow> {
  const now = deps.clock.now();
  return transactionInvalidating(deps, async (tx, invalidate) => {
    const [rule] = await tx
      .update(policyRules)
      .set({ isActive: false, updatedAt: now })
      .where(and(ruleInTenant(principal, id), eq(policyRules.isActive, true)))
      .returning();
    if (rule) {
      await announce(tx, invalidate, rule, 'deleted', now);
      return rule;
    }
    const [unchanged] = await tx.select().from(policyRules).where(ruleInTenant(principal, id));
    if (!unchanged) throw notFound('Policy rule');
    invalidate({ kind: 'agent', id: unchanged.agentId });
    return unchanged;
  });
}

/** A rule's version records, newest first. */
export async function listPolicyVersions(deps: CoreDeps, principal: Principal, id: string, page: Page): Promise<Paged<PolicyVersionRow>> {
  const { db } = deps.database;
  const where = and(eq(policyVersions.policyRuleId, id), eq(policyVersions.tenantId, principal.tenantId));
  const [, versions] = await Promise.all([
    getPolicyRule(deps, principal, id),
    pageOf(db, policyVersions, where, [desc(policyVersions.version)], page),
  ]);
  return versions;
}
