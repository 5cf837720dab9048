import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { expectErrorBody, notFound, stopUntilTestEnds } from './assertions.js';
import { client } from './client.js';
import { action, createAgent, createPolicy, policyBody } from './fixtures.js';
import { signupTenant, type Tenant, type TestApp, TestClock, useTestApp } from './harness.js';
import { evaluation } from './scenarios.js';

/**
 * POST /policies/simulate (CONTRACT, "Policy lifecycle decisions"): every evaluation recorded in
 * the window decided again under the current rules plus a draft, with each agent as it was.
 */
const clock = new TestClock();
const t = useTestApp({ clock });

/** The rule fields a draft create body adds to policyBody's. */
const ASK_ABOVE_100 = {
  policy_name: 'Large amounts need a reviewer',
  policy_effect: 'approval_required',
  rationale: 'Amounts above 100 need a person to look first.',
  priority: 20,
  conditions: { '>': [{ var: 'context.amount' }, 100] },
};

/**
 * A history with a known answer, one second between evaluations on the clock stopped until the test ends:
 * - `ops`: writes of amounts 50, 150 and 500 allowed, then two deploys queued for approval;
 * - `bot`: two writes allowed; suspended at the end, so suspended now but active then;
 * - `paused`: one write allowed, then suspended for two writes (denied), then reactivated.
 * The draft (`draft`): create an approval rule above 100 for ops (change 0), make deploys denied
 * (change 1), delete paused's allow (change 2) and give it an approval rule (change 3).
 */
async function history(app: TestApp) {
  stopUntilTestEnds(clock);
  const api = client(app);
  const tenant = await signupTenant(app.app);
  const [ops, bot, paused] = [
    await createAgent(app.app, tenant.admin, { name: 'ops' }),
    await createAgent(app.app, tenant.admin, { name: 'bot' }),
    await createAgent(app.app, tenant.admin, { name: 'paused' }),
  ];
  const opsWrites = await createPolicy(app.app, tenant.admin, ops.id);
  const deploys = await createPolicy(app.app, tenant.admin, ops.id, {
    operation: 'deploy',
    policy_effect: 'approval_required',
    policy_name: 'Deploys need a reviewer',
  });
  await createPolicy(app.app, tenant.admin, bot.id);
  const pausedWrites = await createPolicy(app.app, tenant.admin, paused.id);

  const at = async (payload: Record<string, unknown>) => {
    clock.step(1000);
    return { at: clock.now().toISOString(), ...(await evaluation(app.app, tenant, payload)) };
  };
  const trace = {
    small: await at(action(ops.id, { context: { amount: 50 } })),
    medium: await at(action(ops.id, { context: { amount: 150 } })),
    large: await at(action(ops.id, { context: { amount: 500 } })),
    deploy1: await at(action(ops.id, { operation: 'deploy' })),
    deploy2: await at(action(ops.id, { operation: 'deploy' })),
    bot1: await at(action(bot.id, { context: { amount: 200 } })),
    bot2: await at(action(bot.id, { context: { amount: 300 } })),
    pausedActive: await at(action(paused.id)),
  };
  expect((await api.post(tenant.admin, `/api/v1/agents/${paused.id}/suspend`)).statusCode).toBe(200);
  const whileSuspended = [await at(action(paused.id)), await at(action(paused.id))];
  expect(whileSuspended.map((evaluated) => evaluated.decision)).toEqual(['deny', 'deny']);
  expect((await api.post(tenant.admin, `/api/v1/agents/${paused.id}/reactivate`)).statusCode).toBe(200);
  expect((await api.post(tenant.admin, `/api/v1/agents/${bot.id}/suspend`)).statusCode).toBe(200);

  const draft = [
    { action: 'create', rule: policyBody(ops.id, ASK_ABOVE_100) },
    { action: 'update', policy_rule_id: deploys.id, rule: { policy_effect: 'deny' } },
    { action: 'delete', policy_rule_id: pausedWrites.id },
    { action: 'create', rule: policyBody(paused.id, { policy_effect: 'approval_required', priority: 5 }) },
  ];
  return { tenant, ops, bot, paused, opsWrites, deploys, pausedWrites, trace, draft };
}

const simulateOn = (app: TestApp, tenant: Tenant, body: Record<string, unknown>) =>
  client(app).post(tenant.admin, '/api/v1/policies/simulate', body);

async function simulation(app: TestApp, tenant: Tenant, body: Record<string, unknown>) {
  const response = await simulateOn(app, tenant, body);
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data;
}

const EVER = { from: '2000-01-01T00:00:00Z', to: '2999-12-31T23:59:59Z' };

/** Rows of every table an evaluation or a rule change writes, for the tenant. */
async function rowCounts(app: TestApp, tenantId: string) {
  const tables = ['traces', 'trace_events', 'policy_rules', 'policy_versions', 'outbox', 'shadow_decisions', 'approval_requests'];
  const counts: Record<string, number> = {};
  for (const table of tables) {
    const rows = await app.runtime.database.rows<{ n: number }>(
      sql`select count(*)::int as n from ${sql.identifier(table)} where tenant_id = ${tenantId}`,
    );
    counts[table] = rows[0]!.n;
  }
  return counts;
}

/** The whole answer for the history's draft over all its evaluations, after `prepare` when given. */
async function expectKnownAnswer(app: TestApp, prepare?: (h: Awaited<ReturnType<typeof history>>) => Promise<void>) {
  const h = await history(app);
  await prepare?.(h);
  const before = await rowCounts(app, h.tenant.tenantId);
  expect(await simulation(app, h.tenant, { ...EVER, changes: h.draft })).toEqual({
    evaluated: 10,
    changed: 5,
    transitions: [
      { from: 'allow', to: 'approval_required', count: 3 },
      { from: 'approval_required', to: 'deny', count: 2 },
    ],
    samples: [
      { trace_id: h.trace.medium.trace_id, from: 'allow', to: 'approval_required', policy_rule_id: null, change: 0 },
      { trace_id: h.trace.large.trace_id, from: 'allow', to: 'approval_required', policy_rule_id: null, change: 0 },
      { trace_id: h.trace.pausedActive.trace_id, from: 'allow', to: 'approval_required', policy_rule_id: null, change: 3 },
      { trace_id: h.trace.deploy1.trace_id, from: 'approval_required', to: 'deny', policy_rule_id: h.deploys.id, change: null },
      { trace_id: h.trace.deploy2.trace_id, from: 'approval_required', to: 'deny', policy_rule_id: h.deploys.id, change: null },
    ],
    rules: [
      { policy_rule_id: null, change: 0, changed: 2 },
      { policy_rule_id: h.deploys.id, change: null, changed: 2 },
      { policy_rule_id: null, change: 3, changed: 1 },
    ],
  });
  expect(await rowCounts(app, h.tenant.tenantId)).toEqual(before);
  return h;
}

describe('the answer', () => {
  it('is exact on a history with a known answer: conditions on context, update, delete, agents suspended then or since; nothing written', async () => {
    await expectKnownAnswer(t);
  });

  it("reads the agent's state from the events of traces written before traces named it, alike", async () => {
    await expectKnownAnswer(t, async (h) => {
      const named = await t.runtime.database.rows<{ agent: string; lifecycle_state: string }>(sql`
        select s.agent_id as agent, s.lifecycle_state from traces t join agent_states s on s.id = t.agent_state_id
        where t.tenant_id = ${h.tenant.tenantId} order by t.started_at`);
      const [ops, bot, paused] = [h.ops.id, h.bot.id, h.paused.id];
      expect(named.map(({ agent, lifecycle_state }) => [agent, lifecycle_state])).toEqual([
        ...[ops, ops, ops, ops, ops, bot, bot, paused].map((agent) => [agent, 'active']),
        [paused, 'suspended'],
        [paused, 'suspended'],
      ]);
      const older = await t.runtime.database.rows(
        sql`update traces set agent_state_id = null where tenant_id = ${h.tenant.tenantId} and agent_id <> ${h.ops.id} returning id`,
      );
      expect(older).toHaveLength(5);
    });
  });

  it('without changes, decides every evaluation as it was decided', async () => {
    const h = await history(t);
    expect(await simulation(t, h.tenant, { ...EVER, changes: [] })).toEqual({
      evaluated: 10,
      changed: 0,
      transitions: [],
      samples: [],
      rules: [],
    });
  });

  it('counts the window with both bounds included, and only the agent asked about', async () => {
    const h = await history(t);
    const window = { from: h.trace.large.at, to: h.trace.deploy1.at };
    const answer = await simulation(t, h.tenant, { ...window, changes: h.draft.slice(0, 2) });
    expect(answer).toMatchObject({
      evaluated: 2,
      changed: 2,
      transitions: [
        { from: 'allow', to: 'approval_required', count: 1 },
        { from: 'approval_required', to: 'deny', count: 1 },
      ],
    });
    expect(answer.samples.map((sample: { trace_id: string }) => sample.trace_id)).toEqual([
      h.trace.large.trace_id,
      h.trace.deploy1.trace_id,
    ]);

    const ofOps = await simulation(t, h.tenant, { ...EVER, agent_id: h.ops.id, changes: h.draft.slice(0, 2) });
    expect(ofOps).toMatchObject({ evaluated: 5, changed: 4 });
    // A rule that decides nothing in the window changes nothing.
    const ofBot = await simulation(t, h.tenant, { ...EVER, agent_id: h.bot.id, changes: [] });
    expect(ofBot).toMatchObject({ evaluated: 2, changed: 0 });
  });

  it("never counts another tenant's evaluations", async () => {
    const h = await history(t);
    const other = await history(t);
    expect(await simulation(t, h.tenant, { ...EVER, changes: [] })).toMatchObject({ evaluated: 10 });
    expect(await simulation(t, other.tenant, { ...EVER, changes: other.draft })).toMatchObject({ evaluated: 10, changed: 5 });
  });

  it('takes a draft shadow rule as one that never decides', async () => {
    const h = await history(t);
    const shadow = { ...h.draft[0]!, rule: policyBody(h.ops.id, { ...ASK_ABOVE_100, mode: 'shadow' }) };
    expect(await simulation(t, h.tenant, { ...EVER, changes: [shadow] })).toMatchObject({ evaluated: 10, changed: 0 });
    const demoted = { action: 'update', policy_rule_id: h.deploys.id, rule: { mode: 'shadow' } };
    // Without its rule the deploys are denied by default.
    expect(await simulation(t, h.tenant, { ...EVER, changes: [demoted] })).toMatchObject({
      changed: 2,
      rules: [{ policy_rule_id: null, change: null, changed: 2 }],
    });
  });
});

describe('a throttled agent', () => {
  it('keeps the throttle it was under: only the rules change, never the limit it was past', async () => {
    stopUntilTestEnds(clock);
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin, {
      name: 'looping',
      max_requests_per_minute: 2,
      throttle_effect: 'approval_required',
    });
    const writes = await createPolicy(t.app, tenant.admin, agent.id);
    const decided = [];
    for (let i = 0; i < 3; i++) decided.push(await evaluation(t.app, tenant, action(agent.id)));
    expect(decided.map((answer) => answer.decision)).toEqual(['allow', 'allow', 'approval_required']);

    expect(await simulation(t, tenant, { ...EVER, changes: [] })).toMatchObject({ evaluated: 3, changed: 0 });
    // Denied by the rules, the throttled one too; held for approval by them, it stays held.
    const denying = [{ action: 'update', policy_rule_id: writes.id, rule: { policy_effect: 'deny' } }];
    expect(await simulation(t, tenant, { ...EVER, changes: denying })).toMatchObject({
      evaluated: 3,
      changed: 3,
      transitions: [
        { from: 'allow', to: 'deny', count: 2 },
        { from: 'approval_required', to: 'deny', count: 1 },
      ],
    });
    const asking = [{ action: 'update', policy_rule_id: writes.id, rule: { policy_effect: 'approval_required' } }];
    expect(await simulation(t, tenant, { ...EVER, changes: asking })).toMatchObject({
      changed: 2,
      transitions: [{ from: 'allow', to: 'approval_required', count: 2 }],
    });
  });
});

describe('refusals', () => {
  it("answers 404 for another tenant's agent or rule, as the rule endpoints do", async () => {
    const h = await history(t);
    const other = await history(t);
    const ask = (body: Record<string, unknown>) => simulateOn(t, h.tenant, { ...EVER, changes: [], ...body });
    expectErrorBody(await ask({ agent_id: other.ops.id }), 404, notFound('Agent'));
    expectErrorBody(await ask({ agent_id: randomUUID() }), 404, notFound('Agent'));
    expectErrorBody(await ask({ changes: [{ action: 'create', rule: policyBody(other.ops.id) }] }), 404, notFound('Agent'));
    for (const change of ['update', 'delete']) {
      const body = { action: change, policy_rule_id: other.deploys.id, ...(change === 'update' ? { rule: { priority: 1 } } : {}) };
      expectErrorBody(await ask({ changes: [body] }), 404, notFound('Policy rule'));
    }
  });

  it('answers 400 for a bad window, a bad condition, or a rule of another agent than agent_id', async () => {
    const h = await history(t);
    const ask = (body: Record<string, unknown>) => simulateOn(t, h.tenant, { ...EVER, changes: [], ...body });
    expectErrorBody(await ask({ from: '2026-02-01', to: '2026-01-01' }), 400, {
      error: 'validation_error',
      message: 'from must not be after to',
      details: { fields: [{ field: 'from', message: 'must not be after to' }] },
    });
    expect((await ask({ from: 'yesterday' })).statusCode).toBe(400);
    expect((await ask({ changes: [{ action: 'rename', policy_rule_id: h.deploys.id }] })).json().details).toEqual({
      fields: [{ field: 'changes.0.action', message: 'must be equal to one of the allowed values' }],
    });
    expect((await ask({ changes: [{ policy_rule_id: h.deploys.id }] })).json().details).toEqual({
      fields: [{ field: 'changes.0.action', message: 'is required' }],
    });
    // `action` picks the shape: only the update's own problem, none of the create's or delete's.
    expect(
      (await ask({ changes: [{ action: 'update', policy_rule_id: h.deploys.id, rule: { priority: 'high' } }] })).json().details,
    ).toEqual({
      fields: [{ field: 'changes.0.rule.priority', message: 'must be integer' }],
    });
    expect((await ask({ changes: undefined })).statusCode).toBe(400);
    // A change that is no object at all is refused as such, not passed on by the shape picker.
    for (const change of [null, 1, 'create', []]) {
      expectErrorBody(await ask({ changes: [{ action: 'delete', policy_rule_id: h.deploys.id }, change] }), 400, {
        error: 'validation_error',
        message: 'Invalid body: changes.1 must be object',
        details: { fields: [{ field: 'changes.1', message: 'must be object' }] },
      });
    }

    const field = 'changes.1.rule.conditions';
    expectErrorBody(
      await ask({ changes: [h.draft[0], { action: 'update', policy_rule_id: h.deploys.id, rule: { conditions: { nope: [1] } } }] }),
      400,
      {
        error: 'validation_error',
        message: `Invalid ${field}: ${field}: unknown operator "nope"`,
        details: { fields: [{ field, message: `${field}: unknown operator "nope"` }] },
      },
    );
    expectErrorBody(await ask({ agent_id: h.ops.id, changes: [h.draft[2]] }), 400, {
      error: 'validation_error',
      message: 'Invalid changes.0.policy_rule_id: the rule is not of the agent named by agent_id',
      details: { fields: [{ field: 'changes.0.policy_rule_id', message: 'must be a rule of the agent named by agent_id' }] },
    });
  });

  it('needs policies:write', async () => {
    const h = await history(t);
    const response = await client(t).post(h.tenant.runtimeKey, '/api/v1/policies/simulate', { ...EVER, changes: [] });
    expect(response.statusCode).toBe(403);
  });
});

describe('over SIMULATE_MAX_EVALUATIONS', () => {
  const limited = useTestApp({ env: { SIMULATE_MAX_EVALUATIONS: '9' }, clock });

  it('answers 413 export_too_large with the count, before deciding anything', async () => {
    const h = await history(limited);
    expectErrorBody(await simulateOn(limited, h.tenant, { ...EVER, changes: h.draft }), 413, {
      error: 'export_too_large',
      message: 'The window holds 10 recorded evaluations; a simulation re-decides at most 9. Narrow the window.',
      details: { total: 10, limit: 9 },
    });
    expect(await simulation(limited, h.tenant, { ...EVER, agent_id: h.ops.id, changes: h.draft.slice(0, 2) })).toMatchObject({
      evaluated: 5,
      changed: 4,
    });
  });
});

describe('on embedded PostgreSQL', () => {
  const embedded = useTestApp({
    env: { DATABASE_URL: '', DATA_DIR: mkdtempSync(join(tmpdir(), 'agov-simulate-')), MIGRATE_ON_START: 'true' },
    clock,
  });

  it('gives the same exact answer and writes nothing', async () => {
    await expectKnownAnswer(embedded);
  });
});
