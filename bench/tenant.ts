/**
 * The bench tenant: two agents with 50 active rules each, the matching rule lowest in
 * priority, so every decision scans them all. The rules are data (`benchRules`), so that
 * `bench:peer` can give a policy engine the same list. A third agent has the allow agent's
 * rules and a shadow rule above them, for evaluate's cost with shadow rules present; a fourth, its
 * matching rule conditioned on three history operators, for what reading its history costs.
 */
import { call, signUp } from './support.js';

export type BenchEffect = 'allow' | 'approval_required' | 'deny';

/** One rule, in the API's terms. */
export interface BenchRule {
  priority: number;
  target_integration: string;
  operation: string;
  resource_scope: string;
  data_classification: string;
  policy_effect: BenchEffect;
  conditions?: Record<string, unknown>;
}

/** The action every scenario asks about; only the priority-0 rule matches it. */
export const benchAction = {
  operation: 'write',
  target_integration: 'github',
  resource_scope: 'repo/app',
  data_classification: 'internal',
} as const;

/** The bench agents by name, with the effect of the rule that matches `benchAction`. */
export const benchAgents = { 'allow-bot': 'allow', 'approval-bot': 'approval_required' } as const;

/**
 * An agent's rules in the order they are created: the one that matches `benchAction` at
 * priority 0, then 49 `deny` rules, each for an integration of its own, above it.
 */
export function benchRules(effect: 'allow' | 'approval_required'): BenchRule[] {
  const rule = (priority: number, policy_effect: BenchEffect, target_integration: string): BenchRule => ({
    priority,
    target_integration,
    operation: 'write',
    resource_scope: 'repo/*',
    data_classification: 'internal',
    policy_effect,
  });
  return [rule(0, effect, 'github'), ...Array.from({ length: 49 }, (_, index) => rule(index + 1, 'deny', `other-${index + 1}`))];
}

/**
 * A shadow rule above all of `benchRules`, that would deny `benchAction`: each evaluation runs
 * the shadow pass and records the decision it would have changed, the most shadow rules can cost.
 */
const shadowDeny: BenchRule & { mode: 'shadow' } = { ...benchRules('allow')[0]!, priority: 50, policy_effect: 'deny', mode: 'shadow' };

/**
 * Three history conditions, one of each operator, that always hold: each evaluation reads and
 * counts all three (over 1 min, 1 h and 24 h), the work a budget, a burst limit and a
 * distinct-records limit cost together.
 */
const historyConditions = {
  and: [
    { '<': [{ recent_count: ['1m'] }, 1e12] },
    { '<': [{ recent_sum: ['context.amount', '1h'] }, 1e15] },
    { '<': [{ recent_distinct: ['resource_scope', '24h', { operation: 'write' }] }, 1e6] },
  ],
};

/**
 * Signs up the tenant, subscribes `webhookUrl` to `approval.requested` (so every approval is
 * delivered; `null`: nothing is) and creates the agents with their rules, `shadow-bot`: the
 * allow agent's rules and `shadowDeny`, and `history-bot`: them with `historyConditions` on the matching one. `auth` is the runtime key's header.
 */
export async function seedTenant(base: string, webhookUrl: string | null) {
  const { headers, runtimeKey } = await signUp(base);
  if (webhookUrl !== null)
    await call(base, '/api/v1/webhooks', { method: 'POST', headers, body: { url: webhookUrl, events: ['approval.requested'] } });
  const agentIds: Record<string, string> = {};
  const agentRules: [string, BenchRule[]][] = [
    ...Object.entries(benchAgents).map(([name, effect]): [string, BenchRule[]] => [name, benchRules(effect)]),
    ['shadow-bot', [...benchRules('allow'), shadowDeny]],
    ['history-bot', benchRules('allow').map((rule) => (rule.priority === 0 ? { ...rule, conditions: historyConditions } : rule))],
  ];
  for (const [name, rules] of agentRules) {
    const agentId = (await call(base, '/api/v1/agents', { method: 'POST', headers, body: agentBody(name) })).body.data.id as string;
    agentIds[name] = agentId;
    for (const rule of rules) {
      await call(base, '/api/v1/policies', {
        method: 'POST',
        headers,
        body: {
          ...rule,
          agent_id: agentId,
          policy_name: `rule ${rule.priority}`,
          rationale: `Benchmark rule number ${rule.priority}.`,
          conditions: rule.conditions ?? null,
          max_session_ttl: null,
          modified_by: 'bench',
          modified_at: '2026-01-01T00:00:00.000Z',
        },
      });
    }
  }
  const actionOf = (name: string) => ({ agent_id: agentIds[name]!, ...benchAction });
  return {
    /** The admin's session headers. */
    headers,
    auth: { authorization: `Bearer ${runtimeKey}` },
    agentIds,
    allowAction: actionOf('allow-bot'),
    approvalAction: { ...actionOf('approval-bot'), context: { ticket: 'BENCH-1' } },
    /** Allowed like `allowAction`, beside a shadow rule that would deny it. */
    shadowAction: actionOf('shadow-bot'),
    /** Allowed like `allowAction` by a rule that also reads three history terms; no context, as `allowAction` (the sum adds 0). */
    historyAction: actionOf('history-bot'),
  };
}

/** A complete agent create body for a bench agent named `name`. */
export const agentBody = (name: string) => ({
  name,
  description: 'bench agent',
  owner_name: 'Bench',
  owner_role: 'owner',
  team: 'bench',
  environment: 'prod',
  authority_model: 'self',
  identity_mode: 'service_identity',
  delegation_model: 'self',
  autonomy_tier: 'medium',
  authorized_integrations: [],
  credential_config: null,
  metadata: null,
  next_review_date: '2027-01-01',
  created_by: 'bench',
  modified_by: 'bench',
  modified_at: '2026-01-01T00:00:00.000Z',
});
