import { describe, expect, it } from 'vitest';
import { client } from './client.js';
import { action, createPolicy } from './fixtures.js';
import { useTestApp } from './harness.js';
import { evaluation, tenantWithAgent, tenantWithPolicy, traceOf } from './scenarios.js';

/**
 * JSON Logic under a budget (CONTRACT, "Hardening decisions"): a condition that errors or
 * runs out of budget denies, naming its rule, and costs the process neither its memory nor
 * its other tenants' answers.
 */
const t = useTestApp();
const api = client(t);

/** Doubles an array at every step: 2^40 items unbounded; json-logic-js took 465 MB at 24. */
const DOUBLING = { reduce: [Array.from({ length: 40 }, () => 1), { merge: [{ var: 'accumulator' }, { var: 'accumulator' }] }, [1]] };
const DOUBLING_WHY = 'budget exceeded: more than 10000 operations';

/** A tenant whose agent has a high-priority rule with `conditions` above a plain allow that matches the same action. */
async function failingRuleAboveAllow(conditions: object) {
  const { tenant, agent } = await tenantWithAgent(t.app);
  await createPolicy(t.app, tenant.admin, agent.id, { policy_name: 'Everything goes', priority: 1 });
  const failing = await createPolicy(t.app, tenant.admin, agent.id, {
    policy_name: 'Unbounded check',
    policy_effect: 'approval_required',
    rationale: 'Ask first when the check says so.',
    priority: 100,
    conditions,
  });
  return { tenant, agent, failing };
}

describe('a condition that cannot be evaluated fails closed', () => {
  it.each([
    ['runs out of budget', DOUBLING, DOUBLING_WHY],
    ['errors', { '*': [] }, '"*" needs at least one operand'],
  ])('when it %s: evaluate and the dry run deny, naming the rule', async (_, conditions, why) => {
    const { tenant, agent, failing } = await failingRuleAboveAllow(conditions);
    const reason = `Condition of rule "Unbounded check" could not be evaluated: ${why}; denied`;

    const body = await evaluation(t.app, tenant, action(agent.id));
    expect(body).toEqual({ decision: 'deny', trace_id: expect.any(String), approval_request_id: null, reason, policy_rule_id: failing.id });
    const trace = await traceOf(t.app, tenant, body.trace_id);
    expect(trace.final_outcome).toBe('denied');
    expect(trace.events.find((event) => event.event_type === 'operation_denied')?.description).toBe(reason);

    const dryRun = await api.post(tenant.runtimeKey, '/api/v1/policies/test', action(agent.id));
    expect(dryRun.statusCode, dryRun.body).toBe(200);
    expect(dryRun.json()).toEqual({ effect: 'deny', rule_id: failing.id, rationale: reason, policy_version: 1 });
  });

  it('while a condition that merely does not hold still lets the lower allow decide', async () => {
    const { tenant, agent } = await failingRuleAboveAllow({ '>': [{ var: 'context.amount' }, 1000] });
    expect((await evaluation(t.app, tenant, { ...action(agent.id), context: { amount: 5 } })).decision).toBe('allow');
  });
});

describe('the service stays responsive', () => {
  it('20 doubling evaluations deny without growing the heap; another tenant keeps being allowed', async () => {
    const hostile = await failingRuleAboveAllow(DOUBLING);
    const ordinary = await tenantWithPolicy(t.app, 'allow');
    const hostileCall = () => evaluation(t.app, hostile.tenant, action(hostile.agent.id));
    const ordinaryCall = () => evaluation(t.app, ordinary.tenant, action(ordinary.agent.id));
    await hostileCall(); // warm up: caches, prepared statements, JIT
    const rssBefore = process.memoryUsage().rss;

    for (let i = 0; i < 20; i += 1) {
      const [denied, allowed] = await Promise.all([hostileCall(), ordinaryCall()]);
      expect(denied).toMatchObject({ decision: 'deny', policy_rule_id: hostile.failing.id });
      expect(denied.reason).toContain(DOUBLING_WHY);
      expect(allowed).toMatchObject({ decision: 'allow', policy_rule_id: ordinary.rule.id });
    }

    const grownMb = (process.memoryUsage().rss - rssBefore) / (1024 * 1024);
    expect(grownMb).toBeLessThan(50);
  });
});
