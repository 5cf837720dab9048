import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { approvalRequests } from '@agov/db';
import { expectErrorBody, expectInvalidBody, expectInvalidQuery, invalidBody, notFound, ONE_OF, stopUntilTestEnds } from './assertions.js';
import { client } from './client.js';
import { action, createAgent, createPolicy, policyBody } from './fixtures.js';
import { type Tenant, TestClock, useTestApp } from './harness.js';
import { versions } from './policy-rules.js';
import { type Effect, evaluation, tenantWithAgent, tenantWithPolicy, traceOf } from './scenarios.js';

/**
 * Shadow rules (CONTRACT, "Policy lifecycle decisions"): never deciding, recorded where they
 * would have decided otherwise, and reported per rule.
 */
const clock = new TestClock();
const t = useTestApp({ clock });
const api = client(t);

const EVER = 'from=2000-01-01T00:00:00Z&to=2999-12-31T23:59:59Z';

interface ReportEntry {
  policy_rule_id: string;
  policy_name: string;
  would_change: number;
  transitions: { from: Effect; to: Effect; count: number }[];
  sample_trace_ids: string[];
}

/** The shadow report over `query`, which must answer 200. */
async function reportOf(app: FastifyInstance, tenant: Tenant, query = EVER): Promise<ReportEntry[]> {
  const response = await client(app).get(tenant.runtimeKey, `/api/v1/policies/shadow-report?${query}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data;
}

/** A tenant whose agent is allowed the fixture action (priority 10), with a shadow rule of `effect` above that allow. */
async function withShadowRule(app: FastifyInstance, effect: Effect, overrides: Record<string, unknown> = {}) {
  const { tenant, agent, rule: allow } = await tenantWithPolicy(app, 'allow');
  const shadow = await createPolicy(app, tenant.admin, agent.id, {
    policy_name: `Shadow ${effect}`,
    policy_effect: effect,
    rationale: `Would ${effect} repository writes.`,
    priority: 20,
    mode: 'shadow',
    ...overrides,
  });
  return { tenant, agent, allow, shadow };
}

/** Evaluates the fixture action (with `context`) `times` times, a second apart on the stopped clock; answers the trace ids in order. */
async function evaluations(tenant: Tenant, agentId: string, times: number, overrides: Record<string, unknown> = {}) {
  const traceIds: string[] = [];
  for (let i = 0; i < times; i += 1) {
    clock.step(1000);
    traceIds.push((await evaluation(t.app, tenant, { ...action(agentId), ...overrides })).trace_id);
  }
  return traceIds;
}

describe('mode on rules', () => {
  it('is enforce unless given, shadow when asked, on the rule and its versions', async () => {
    const { tenant, agent } = await tenantWithAgent(t.app);
    const enforced = await createPolicy(t.app, tenant.admin, agent.id);
    const shadow = await createPolicy(t.app, tenant.admin, agent.id, { mode: 'shadow' });
    expect([enforced.mode, shadow.mode]).toEqual(['enforce', 'shadow']);
    expect((await api.get(tenant.runtimeKey, `/api/v1/policies/${shadow.id}`)).json().data).toEqual(shadow);
    const listed = (await api.get(tenant.runtimeKey, `/api/v1/policies?agent_id=${agent.id}`)).json().data as {
      id: string;
      mode: string;
    }[];
    expect(listed.map((rule) => [rule.id, rule.mode]).sort()).toEqual(
      [
        [enforced.id, 'enforce'],
        [shadow.id, 'shadow'],
      ].sort(),
    );
    expect((await versions(api, tenant, shadow.id)).map((v) => [v.version, v.mode])).toEqual([[1, 'shadow']]);
    expect((await versions(api, tenant, enforced.id)).map((v) => [v.version, v.mode])).toEqual([[1, 'enforce']]);
  });

  it('is switched by PATCH as a new version; a PATCH without it keeps it', async () => {
    const { tenant, shadow } = await withShadowRule(t.app, 'deny');
    const other = await api.patch(tenant.admin, `/api/v1/policies/${shadow.id}`, { priority: 30 });
    expect(other.json().data).toMatchObject({ mode: 'shadow', priority: 30, policy_version: 2 });
    const promoted = await api.patch(tenant.admin, `/api/v1/policies/${shadow.id}`, { mode: 'enforce' });
    expect(promoted.statusCode, promoted.body).toBe(200);
    expect(promoted.json().data).toMatchObject({ mode: 'enforce', policy_version: 3 });
    expect((await versions(api, tenant, shadow.id)).map((v) => [v.version, v.mode, v.change_summary])).toEqual([
      [3, 'enforce', 'Changed mode'],
      [2, 'shadow', 'Changed priority'],
      [1, 'shadow', 'Created'],
    ]);
  });

  it.each([['observe'], [''], [null], [true]])('refuses the mode %j with 400, on create and PATCH', async (mode) => {
    const { tenant, agent, rule } = await tenantWithPolicy(t.app, 'allow');
    const problems =
      typeof mode === 'string' ? [['mode', ONE_OF] as const] : [['mode', 'must be string'] as const, ['mode', ONE_OF] as const];
    expectInvalidBody(await api.patch(tenant.admin, `/api/v1/policies/${rule.id}`, { mode }), problems);
    expectInvalidBody(await api.post(tenant.admin, '/api/v1/policies', policyBody(agent.id, { mode })), problems);
  });
});

describe('evaluate beside shadow rules', () => {
  it('never changes a decision; the report counts each it would have changed, with its transitions and newest traces', async () => {
    stopUntilTestEnds(clock);
    const { tenant, agent, allow, shadow } = await withShadowRule(t.app, 'deny', { operation: '*' });
    const reviewed = await createPolicy(t.app, tenant.admin, agent.id, {
      policy_effect: 'approval_required',
      operation: 'deploy',
      policy_name: 'Deploys need a reviewer',
    });

    const writes = await evaluations(tenant, agent.id, 7);
    const deploys = await evaluations(tenant, agent.id, 2, { operation: 'deploy' });
    // Neither rule matches a read of public data: a default deny, which the shadow rule would not change.
    await evaluations(tenant, agent.id, 1, { data_classification: 'public' });

    const decided = await evaluation(t.app, tenant, action(agent.id));
    expect(decided).toMatchObject({ decision: 'allow', policy_rule_id: allow.id, reason: 'Routine repository maintenance is allowed.' });
    expect((await traceOf(t.app, tenant, writes[0]!)).final_outcome).toBe('in_progress');
    // The deploys still wait for a reviewer.
    const approvals = await t.runtime.database.db.select().from(approvalRequests).where(eq(approvalRequests.tenantId, tenant.tenantId));
    expect(approvals.map((approval) => approval.policyRuleId)).toEqual([reviewed.id, reviewed.id]);

    expect(await reportOf(t.app, tenant)).toEqual([
      {
        policy_rule_id: shadow.id,
        policy_name: 'Shadow deny',
        would_change: 10,
        transitions: [
          { from: 'allow', to: 'deny', count: 8 },
          { from: 'approval_required', to: 'deny', count: 2 },
        ],
        // The last write was made at the time of the public read, after the deploys.
        sample_trace_ids: [decided.trace_id, deploys[1], deploys[0], writes[6], writes[5]],
      },
    ]);
  });

  it('opens no approval for a shadow approval_required rule, and orders rules by how many decisions they would change', async () => {
    stopUntilTestEnds(clock);
    const {
      tenant,
      agent,
      shadow: ask,
    } = await withShadowRule(t.app, 'approval_required', {
      priority: 30,
      conditions: { '>': [{ var: 'context.amount' }, 100] },
    });
    const deny = await createPolicy(t.app, tenant.admin, agent.id, {
      policy_name: 'Shadow deny',
      policy_effect: 'deny',
      priority: 20,
      mode: 'shadow',
    });

    const asked = await evaluations(tenant, agent.id, 2, { context: { amount: 500 } });
    const denied = await evaluations(tenant, agent.id, 3, { context: { amount: 5 } });
    for (const traceId of [...asked, ...denied]) expect((await traceOf(t.app, tenant, traceId)).approval_requests).toEqual([]);
    expect(await t.runtime.database.db.select().from(approvalRequests).where(eq(approvalRequests.tenantId, tenant.tenantId))).toEqual([]);

    expect(await reportOf(t.app, tenant)).toEqual([
      {
        policy_rule_id: deny.id,
        policy_name: 'Shadow deny',
        would_change: 3,
        transitions: [{ from: 'allow', to: 'deny', count: 3 }],
        sample_trace_ids: [...denied].reverse(),
      },
      {
        policy_rule_id: ask.id,
        policy_name: 'Shadow approval_required',
        would_change: 2,
        transitions: [{ from: 'allow', to: 'approval_required', count: 2 }],
        sample_trace_ids: [...asked].reverse(),
      },
    ]);
  });

  it.each([
    ['errors', { '*': [] }],
    [
      'runs out of budget',
      { reduce: [Array.from({ length: 40 }, () => 1), { merge: [{ var: 'accumulator' }, { var: 'accumulator' }] }, [1]] },
    ],
  ])('counts a shadow rule whose condition %s as one that would deny', async (_, conditions) => {
    const { tenant, agent, allow, shadow } = await withShadowRule(t.app, 'allow', { conditions });
    const decided = await evaluation(t.app, tenant, action(agent.id));
    expect(decided).toMatchObject({ decision: 'allow', policy_rule_id: allow.id });
    expect(await reportOf(t.app, tenant)).toEqual([
      {
        policy_rule_id: shadow.id,
        policy_name: 'Shadow allow',
        would_change: 1,
        transitions: [{ from: 'allow', to: 'deny', count: 1 }],
        sample_trace_ids: [decided.trace_id],
      },
    ]);
  });

  it('records nothing for a shadow rule ranked below the deciding rule, or one that would decide the same', async () => {
    const { tenant, agent } = await withShadowRule(t.app, 'allow');
    await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'deny', priority: 5, mode: 'shadow' });
    expect((await evaluation(t.app, tenant, action(agent.id))).decision).toBe('allow');
    expect(await reportOf(t.app, tenant)).toEqual([]);
  });

  it('decides by a promoted rule from then on; the report keeps what it would have changed before', async () => {
    stopUntilTestEnds(clock);
    const { tenant, agent, shadow } = await withShadowRule(t.app, 'deny');
    const [before] = await evaluations(tenant, agent.id, 1);
    expect((await traceOf(t.app, tenant, before!)).final_outcome).toBe('in_progress');

    const promoted = await api.patch(tenant.admin, `/api/v1/policies/${shadow.id}`, { mode: 'enforce' });
    expect(promoted.statusCode, promoted.body).toBe(200);
    clock.step(1000);
    expect(await evaluation(t.app, tenant, action(agent.id))).toMatchObject({
      decision: 'deny',
      policy_rule_id: shadow.id,
      reason: 'Would deny repository writes.',
    });
    expect(await reportOf(t.app, tenant)).toEqual([
      {
        policy_rule_id: shadow.id,
        policy_name: 'Shadow deny',
        would_change: 1,
        transitions: [{ from: 'allow', to: 'deny', count: 1 }],
        sample_trace_ids: [before],
      },
    ]);
  });
});

describe('GET /api/v1/policies/shadow-report', () => {
  it('counts the decisions recorded inside the window, both bounds included', async () => {
    const start = stopUntilTestEnds(clock);
    const { tenant, agent } = await withShadowRule(t.app, 'deny');
    const [first, second] = await evaluations(tenant, agent.id, 2);
    const at = (ms: number) => new Date(start.getTime() + ms).toISOString();
    const samples = async (from: string, to: string) =>
      (await reportOf(t.app, tenant, `from=${from}&to=${to}`)).map((entry) => entry.sample_trace_ids);

    expect(await samples(at(1000), at(1000))).toEqual([[first]]);
    expect(await samples(at(1001), at(2000))).toEqual([[second]]);
    expect(await samples(at(1001), at(1999))).toEqual([]);
    expect(await samples(at(0), at(2000))).toEqual([[second, first]]);
  });

  it("keeps to the tenant's rules and, given agent_id, to that agent's; another tenant's agent is 404", async () => {
    const { tenant, agent, shadow } = await withShadowRule(t.app, 'deny');
    const second = await createAgent(t.app, tenant.admin, { name: 'second-bot' });
    await createPolicy(t.app, tenant.admin, second.id, { policy_effect: 'allow' });
    const secondShadow = await createPolicy(t.app, tenant.admin, second.id, { policy_effect: 'deny', priority: 20, mode: 'shadow' });
    const other = await withShadowRule(t.app, 'deny');

    await evaluation(t.app, tenant, action(agent.id));
    await evaluation(t.app, tenant, action(second.id));
    await evaluation(t.app, tenant, action(second.id));
    await evaluation(t.app, other.tenant, action(other.agent.id));

    const ruleIds = (entries: ReportEntry[]) => entries.map((entry) => [entry.policy_rule_id, entry.would_change]);
    expect(ruleIds(await reportOf(t.app, tenant))).toEqual([
      [secondShadow.id, 2],
      [shadow.id, 1],
    ]);
    expect(ruleIds(await reportOf(t.app, tenant, `${EVER}&agent_id=${agent.id}`))).toEqual([[shadow.id, 1]]);
    expect(ruleIds(await reportOf(t.app, other.tenant))).toEqual([[other.shadow.id, 1]]);

    for (const agentId of [other.agent.id, randomUUID()]) {
      const foreign = await api.get(tenant.runtimeKey, `/api/v1/policies/shadow-report?${EVER}&agent_id=${agentId}`);
      expectErrorBody(foreign, 404, notFound('Agent'));
    }
  });

  it('refuses a window it cannot read with 400', async () => {
    const { tenant } = await tenantWithAgent(t.app);
    const get = (query: string) => api.get(tenant.runtimeKey, `/api/v1/policies/shadow-report?${query}`);
    expectInvalidQuery(await get('to=2026-01-01'), [['from', 'is required']]);
    expectInvalidQuery(await get('from=2026-01-01'), [['to', 'is required']]);
    expectInvalidQuery(await get('from=yesterday&to=2026-01-01'), [
      ['from', 'must match format "date-time"'],
      ['from', 'must match format "date"'],
      ['from', 'must match a schema in anyOf'],
    ]);
    expectInvalidQuery(await get(`${EVER}&agent_id=x`), [['agent_id', 'must match format "uuid"']]);
    expectErrorBody(await get('from=2026-02-01&to=2026-01-01'), 400, {
      error: 'validation_error',
      message: 'from must not be after to',
      details: { fields: [{ field: 'from', message: 'must not be after to' }] },
    });
  });
});

describe('POST /api/v1/policies/test beside shadow rules', () => {
  it('ignores them unless include_shadow is true, and records nothing', async () => {
    const { tenant, agent, allow, shadow } = await withShadowRule(t.app, 'deny');
    const dryRun = (extra: Record<string, unknown>) =>
      api.post(tenant.runtimeKey, '/api/v1/policies/test', { ...action(agent.id), ...extra });
    const enforced = { effect: 'allow', rule_id: allow.id, rationale: 'Routine repository maintenance is allowed.', policy_version: 1 };
    expect((await dryRun({})).json()).toEqual(enforced);
    expect((await dryRun({ include_shadow: false })).json()).toEqual(enforced);
    expect((await dryRun({ include_shadow: true })).json()).toEqual({
      effect: 'deny',
      rule_id: shadow.id,
      rationale: 'Would deny repository writes.',
      policy_version: 1,
    });
    // With nothing for a shadow rule to say, the enforced decision.
    expect((await dryRun({ include_shadow: true, operation: 'read' })).json()).toMatchObject({ effect: 'deny', rule_id: null });
    expectErrorBody(await dryRun({ include_shadow: 'yes' }), 400, invalidBody([['include_shadow', 'must be boolean']]));
    expect(await reportOf(t.app, tenant)).toEqual([]);
  });
});

describe('on embedded PostgreSQL', () => {
  const embedded = useTestApp({
    env: { DATABASE_URL: '', DATA_DIR: mkdtempSync(join(tmpdir(), 'agov-shadow-')), MIGRATE_ON_START: 'true' },
  });

  it('records what a shadow rule would change and reports it', async () => {
    const { tenant, agent, shadow } = await withShadowRule(embedded.app, 'deny');
    const traceIds = [];
    for (let i = 0; i < 2; i += 1) traceIds.push((await evaluation(embedded.app, tenant, action(agent.id))).trace_id);
    const [entry] = await reportOf(embedded.app, tenant);
    expect(entry).toMatchObject({ policy_rule_id: shadow.id, would_change: 2, transitions: [{ from: 'allow', to: 'deny', count: 2 }] });
    expect(new Set(entry!.sample_trace_ids)).toEqual(new Set(traceIds));
  });
});
