import { and, eq } from 'drizzle-orm';
import { agents, policyRules, type AgentRow, type PolicyRuleRow } from '@agov/db';
import type { Principal } from '../access/access.js';
import type { CoreDeps } from '../caches/caches.js';
import { orderRules } from '../policy/matching.js';
import { assertValidRuleInput, createdColumns, patchedColumns, type PolicyRuleInput, type PolicyRulePatch } from '../policy/rule-store.js';
import { AppError, notFound } from '../support/errors.js';

/** One change of a draft: the bodies of create, PATCH and DELETE on the rule endpoints. */
export type DraftChange =
  | { action: 'create'; rule: PolicyRuleInput }
  | { action: 'update'; policy_rule_id: string; rule: PolicyRulePatch }
  | { action: 'delete'; policy_rule_id: string };

/** The tenant's agents (or the one asked about) and the rules that would decide for each under the draft. */
export interface DraftRules {
  agents: Map<string, AgentRow>;
  /** Per agent id: its active `enforce` rules with the draft applied, in evaluation order. */
  rulesByAgent: Map<string, PolicyRuleRow[]>;
  /** The rules the draft creates, each with the index of its change in the body. */
  created: Map<PolicyRuleRow, number>;
}

/**
 * The current rules with `changes` applied in order, in memory only, each checked as its
 * endpoint would check it: conditions as on create and PATCH (400, the field named
 * `changes.<i>.rule.conditions`, as the schema names fields), an agent or rule outside the tenant 404. With `agentId`, a change
 * to a rule of another agent is 400: it could change nothing in the window, and would be a
 * mistake. A created rule gets version 1 and `created_at` now, so on ties it ranks after every
 * existing rule, as it would once created; its id is made from its index so that the order of
 * several is that of the body.
 */
export async function draftRules(
  deps: CoreDeps,
  principal: Principal,
  changes: readonly DraftChange[],
  agentId: string | undefined,
): Promise<DraftRules> {
  const { db } = deps.database;
  const now = deps.clock.now();
  const [agentRows, ruleRows] = await Promise.all([
    db
      .select()
      .from(agents)
      .where(and(eq(agents.tenantId, principal.tenantId), agentId === undefined ? undefined : eq(agents.id, agentId))),
    // Inactive rules too: a PATCH of one is accepted (it stays inactive), so the draft must find it.
    db.select().from(policyRules).where(eq(policyRules.tenantId, principal.tenantId)),
  ]);
  if (agentId !== undefined && agentRows.length === 0) throw notFound('Agent');
  const agentsById = new Map(agentRows.map((agent) => [agent.id, agent]));
  const rules = new Map(ruleRows.map((rule) => [rule.id, rule]));
  const created = new Map<PolicyRuleRow, number>();

  changes.forEach((change, index) => {
    const field = `changes.${index}`;
    if (change.action === 'create') {
      assertValidRuleInput(change.rule, `${field}.rule.conditions`);
      if (!agentsById.has(change.rule.agent_id)) {
        if (agentId === undefined) throw notFound('Agent');
        throw otherAgent(`${field}.rule.agent_id`);
      }
      const rule: PolicyRuleRow = {
        ...createdColumns(principal.tenantId, change.rule, now),
        id: draftRuleId(index),
        isActive: true,
        policyVersion: 1,
      };
      rules.set(rule.id, rule);
      created.set(rule, index);
      return;
    }
    const current = rules.get(change.policy_rule_id);
    if (!current || created.has(current)) throw notFound('Policy rule');
    if (agentId !== undefined && current.agentId !== agentId) throw otherAgent(`${field}.policy_rule_id`);
    if (change.action === 'update') {
      assertValidRuleInput(change.rule, `${field}.rule.conditions`);
      rules.set(current.id, { ...current, ...patchedColumns(principal, current, change.rule, now) });
    } else {
      rules.set(current.id, { ...current, isActive: false });
    }
  });

  const byAgent = new Map<string, PolicyRuleRow[]>();
  for (const rule of rules.values()) {
    // Shadow rules never decide, draft ones included.
    if (!rule.isActive || rule.mode !== 'enforce' || !agentsById.has(rule.agentId)) continue;
    const list = byAgent.get(rule.agentId) ?? [];
    list.push(rule);
    byAgent.set(rule.agentId, list);
  }
  const rulesByAgent = new Map([...byAgent].map(([id, list]) => [id, orderRules(list)]));
  return { agents: agentsById, rulesByAgent, created };
}

/** A UUID-shaped id that sorts by the change's index; it never leaves the simulation. */
const draftRuleId = (index: number) => `00000000-0000-0000-0000-${index.toString(16).padStart(12, '0')}`;

const otherAgent = (field: string) =>
  new AppError('validation_error', `Invalid ${field}: the rule is not of the agent named by agent_id`, {
    fields: [{ field, message: 'must be a rule of the agent named by agent_id' }],
  });
