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
import { lockRuleSet } from './rule-set.js';
import type { PolicyEffect } from './effects.js';

/** `enforce` rules decide; `shadow` rules are only recorded where they would have decided otherwise (README, "Shadow rules"). */
export const RULE_MODES = ['enforce', 'shadow'] as const;

/** The fields a PATCH may change; each change is recorded as a new version. */
export interface PolicyRuleEdit {
  policy_name: string;
  target_integration: string;
  operation: string;
  resource_scope: string;
  data_classification: DataClassification;
  policy_effect: PolicyEffect;
  rationale: string;
  priority: number;
  conditions: Record<string, unknown> | null;
  max_session_ttl: number | null;
  approvals_required: number;
  /** Seconds a queued request may stay pending before escalation recipients are told; null never. */
  escalate_after_seconds: number | null;
  mode: (typeof RULE_MODES)[number];
}

export interface PolicyRuleInput extends Omit<PolicyRuleEdit, 'approvals_required' | 'escalate_after_seconds' | 'mode'> {
  /** One when omitted: the spec's single reviewer. */
  approvals_required?: number;
  agent_id: string;
  /** Optional on create (CONTRACT, "Approval decisions"): null when left out. */
  escalate_after_seconds?: number | null;
  /** `enforce` when omitted (CONTRACT, "Policy lifecycle decisions"). */
  mode?: PolicyRuleEdit['mode'];
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
  ['approvals_required', 'approvalsRequired'],
  ['conditions', 'conditions'],
  ['data_classification', 'dataClassification'],
  ['escalate_after_seconds', 'escalateAfterSeconds'],
  ['max_session_ttl', 'maxSessionTtl'],
  ['mode', 'mode'],
  ['operation', 'operation'],
  ['policy_effect', 'policyEffect'],
  ['policy_name', 'policyName'],
  ['priority', 'priority'],
  ['rationale', 'rationale'],
  ['resource_scope', 'resourceScope'],
  ['target_integration', 'targetIntegration'],
] as const satisfies readonly (readonly [keyof PolicyRuleEdit, keyof PolicyRuleRow])[];

type EditColumns = Pick<PolicyRuleRow, (typeof EDITABLE)[number][1]>;

/** The fields a PATCH may change, in the order change summaries name them: a rule as a policy file holds it. */
export const EDITABLE_RULE_FIELDS: readonly (keyof PolicyRuleEdit)[] = EDITABLE.map(([field]) => field);

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
    approvalsRequired: input.approvals_required,
    escalateAfterSeconds: input.escalate_after_seconds,
    mode: input.mode,
  };
}

/** What create and PATCH check beyond the body's schema; `field` names the body in the error. */
export function assertValidRuleInput(input: PolicyRulePatch, field = 'conditions'): void {
  if (input.conditions !== undefined && input.conditions !== null) assertValidConditions(input.conditions, field);
}

/** What a create body's optional fields are when left out (CONTRACT: one approver, no escalation, enforced). */
export const RULE_CREATE_DEFAULTS = {
  approvals_required: 1,
  escalate_after_seconds: null,
  mode: 'enforce',
} as const satisfies Pick<PolicyRuleEdit, 'approvals_required' | 'escalate_after_seconds' | 'mode'>;

/** The columns a create body inserts, its optional fields defaulted (the store's defaults give id, version and is_active). */
export const createdColumns = (tenantId: string, input: PolicyRuleInput, now: Date) =>
  ({
    ...toColumns({
      ...input,
      approvals_required: input.approvals_required ?? RULE_CREATE_DEFAULTS.approvals_required,
      escalate_after_seconds: input.escalate_after_seconds ?? RULE_CREATE_DEFAULTS.escalate_after_seconds,
      mode: input.mode ?? RULE_CREATE_DEFAULTS.mode,
    }),
    tenantId,
    agentId: input.agent_id,
    modifiedBy: input.modified_by,
    modifiedAt: new Date(input.modified_at),
    createdAt: now,
    updatedAt: now,
  }) satisfies typeof policyRules.$inferInsert;

/**
 * The columns a PATCH of `current` sets: the fields given, as the next version, by `principal`.
 * Fields left out are absent, not undefined, so the result can also be spread over a row in memory.
 */
export const patchedColumns = (principal: Principal, current: PolicyRuleRow, patch: PolicyRulePatch, now: Date) => ({
  ...(Object.fromEntries(Object.entries(toColumns(patch)).filter(([, value]) => value !== undefined)) as Partial<EditColumns>),
  policyVersion: current.policyVersion + 1,
  modifiedBy: actorName(principal),
  modifiedAt: now,
  updatedAt: now,
});

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
  approvalsRequired: rule.approvalsRequired,
  escalateAfterSeconds: rule.escalateAfterSeconds,
  mode: rule.mode,
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
  assertValidRuleInput(input);
  const now = deps.clock.now();
  return transactionInvalidating(deps, async (tx, invalidate) => {
    await lockRuleSet(tx, principal.tenantId, 'shared');
    return insertPolicyRule(tx, invalidate, principal, input, now, 'Created');
  });
}

/** Creates a rule in the caller's transaction (which holds the rule set's lock): version 1, `change_summary` as given. */
export async function insertPolicyRule(
  tx: Tx,
  invalidate: Invalidate,
  principal: Principal,
  input: PolicyRuleInput,
  now: Date,
  changeSummary: string,
): Promise<PolicyRuleRow> {
  const [agent] = await tx
    .select({ id: agents.id })
    .from(agents)
    .where(and(eq(agents.id, input.agent_id), eq(agents.tenantId, principal.tenantId)));
  if (!agent) throw notFound('Agent');
  const [rule] = await tx
    .insert(policyRules)
    .values(createdColumns(principal.tenantId, input, now))
    .returning();
  await tx.insert(policyVersions).values(versionOf(rule!, changeSummary, now));
  await announce(tx, invalidate, rule!, 'created', now);
  return rule!;
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
  assertValidRuleInput(patch);
  const now = deps.clock.now();
  return transactionInvalidating(deps, async (tx, invalidate) => {
    await lockRuleSet(tx, principal.tenantId, 'shared');
    return patchPolicyRule(tx, invalidate, principal, id, patch, now, changedFieldsSummary);
  });
}

/** The summary of a PATCH: the fields whose values it changed, in EDITABLE's order. */
const changedFieldsSummary = (changed: readonly (keyof PolicyRuleEdit)[]) =>
  changed.length === 0 ? 'No field values changed' : `Changed ${changed.join(', ')}`;

/**
 * A PATCH in the caller's transaction (which holds the rule set's lock): the next version,
 * whose `change_summary` is made from the fields it changed.
 */
export async function patchPolicyRule(
  tx: Tx,
  invalidate: Invalidate,
  principal: Principal,
  id: string,
  patch: PolicyRulePatch,
  now: Date,
  summarize: (changed: readonly (keyof PolicyRuleEdit)[]) => string,
): Promise<PolicyRuleRow> {
  const [current] = await tx.select().from(policyRules).where(ruleInTenant(principal, id)).for('update');
  if (!current) throw notFound('Policy rule');
  const changed = EDITABLE.filter(([field, column]) => patch[field] !== undefined && !isDeepStrictEqual(patch[field], current[column]));
  const [rule] = await tx
    .update(policyRules)
    .set(patchedColumns(principal, current, patch, now))
    .where(eq(policyRules.id, current.id))
    .returning();
  await tx.insert(policyVersions).values(versionOf(rule!, summarize(changed.map(([field]) => field)), now));
  await announce(tx, invalidate, rule!, 'updated', now);
  return rule!;
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
    await lockRuleSet(tx, principal.tenantId, 'shared');
    return softDeletePolicyRule(tx, invalidate, principal, id, now);
  });
}

/** The soft delete in the caller's transaction (which holds the rule set's lock). */
export async function softDeletePolicyRule(
  tx: Tx,
  invalidate: Invalidate,
  principal: Principal,
  id: string,
  now: Date,
): Promise<PolicyRuleRow> {
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
