import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, asc, eq, sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { outbox } from '@agov/db';
import { dropRedisPrefixes } from '../../../test/processes.js';
import { expectErrorBody, stopUntilTestEnds } from './assertions.js';
import { client } from './client.js';
import { action, createAgent, createPolicy, policyBody } from './fixtures.js';
import { createTestApp, signupTenant, TestClock, type TestApp, useTestApp } from './harness.js';
import { evaluation } from './scenarios.js';

/**
 * History operators in conditions (CONTRACT, "Policy lifecycle decisions"): exact counts at the
 * windows' edges, the evaluation being decided included, in memory and in Redis shared by
 * processes, rebuilt from traces after Redis lost them.
 */
const clock = new TestClock();
const t = useTestApp({ clock });
const api = client(t);

/** A fresh agent whose writes one rule allows and deletes another denies, under a rule that denies anything when `conditions` hold. */
async function agentWithHistoryRule(app: TestApp['app'], conditions: object) {
  const tenant = await signupTenant(app);
  const agent = await createAgent(app, tenant.admin);
  await createPolicy(app, tenant.admin, agent.id, { policy_name: 'Writes', priority: 10 });
  await createPolicy(app, tenant.admin, agent.id, {
    operation: 'delete',
    policy_name: 'Deletes',
    policy_effect: 'deny',
    rationale: 'No deletes.',
    priority: 50,
  });
  const limit = await createPolicy(app, tenant.admin, agent.id, {
    operation: '*',
    policy_name: 'History limit',
    policy_effect: 'deny',
    rationale: 'Past the limit.',
    priority: 100,
    conditions,
  });
  return { tenant, agent, limit };
}

/**
 * Stops `testClock` at the next whole hour, where every window's steps of these tests begin (a
 * 60th of the window, at least 1 s: history/tally.ts), and answers that instant in ms.
 */
function stopAtWholeHour(testClock: TestClock): number {
  const stopped = stopUntilTestEnds(testClock).getTime();
  const start = Math.ceil(stopped / 3_600_000) * 3_600_000;
  testClock.step(start - stopped);
  return start;
}

/** Evaluates `body` at `atMs` after `start` (a stopped clock), answering the decision. */
const decisionAt = async (
  app: TestApp['app'],
  tenant: Awaited<ReturnType<typeof signupTenant>>,
  start: number,
  atMs: number,
  body: Record<string, unknown>,
) => {
  clock.step(start + atMs - clock.now().getTime());
  return (await evaluation(app, tenant, body)).decision;
};

describe('recent_count', () => {
  it('counts each evaluation for the window and until its step (1 s here) has left it, the one being decided and denied ones included', async () => {
    const { tenant, agent } = await agentWithHistoryRule(t.app, { '>': [{ recent_count: ['10s'] }, 2] });
    const start = stopAtWholeHour(clock);
    const at = (ms: number) => decisionAt(t.app, tenant, start, ms, action(agent.id));
    expect(await at(0)).toBe('allow'); // 1
    expect(await at(1_000)).toBe('allow'); // 2
    expect(await at(9_999)).toBe('deny'); // 3: 0, 1 000, 9 999
    expect(await at(10_999)).toBe('deny'); // 4: the step of 0 ends at 1 000, still in the window from 999
    expect(await at(11_000)).toBe('deny'); // 4: 0 has left; 1 000, 9 999, 10 999, 11 000
    expect(await at(21_000)).toBe('allow'); // 2: the steps from 11 000 on: 11 000, 21 000
  });

  it('with a filter counts only matching evaluations; a decision filter counts decisions already made', async () => {
    const { tenant, agent } = await agentWithHistoryRule(t.app, {
      '>=': [{ recent_count: ['1h', { decision: 'deny', resource_scope: 'repo/*' }] }, 2],
    });
    const start = stopAtWholeHour(clock);
    const at = (ms: number, overrides: Record<string, unknown>) => decisionAt(t.app, tenant, start, ms, action(agent.id, overrides));
    expect(await at(0, { operation: 'delete' })).toBe('deny'); // by "Deletes"; 0 denials before it
    expect(await at(1, {})).toBe('allow'); // 1 denial
    expect(await at(2, { operation: 'delete', resource_scope: 'docs/a' })).toBe('deny'); // outside repo/*
    expect(await at(3, {})).toBe('allow'); // still 1 in repo/*
    expect(await at(4, { operation: 'delete' })).toBe('deny');
    expect(await at(5, {})).toBe('deny'); // 2 denials in repo/*
    expect(await at(3_600_000, {})).toBe('deny'); // the first minute's step (1 min for 1 h) is still in: 0, 4, 5
    expect(await at(3_660_000, {})).toBe('allow'); // it has left: only the denial at 3 600 000
  });
});

describe('recent_sum and recent_distinct', () => {
  it('recent_sum adds a context number (others as 0) over the window', async () => {
    const { tenant, agent } = await agentWithHistoryRule(t.app, {
      '>': [{ recent_sum: ['context.amount', '1m', { operation: 'write' }] }, 100],
    });
    const start = stopAtWholeHour(clock);
    const pay = (ms: number, amount: unknown, overrides: Record<string, unknown> = {}) =>
      decisionAt(t.app, tenant, start, ms, { ...action(agent.id, overrides), context: { amount } });
    expect(await pay(0, 60)).toBe('allow'); // 60
    expect(await pay(1, '50')).toBe('allow'); // 60: text counts as 0
    expect(await pay(2, 500, { operation: 'delete' })).toBe('deny'); // by "Deletes"; not a write
    expect(await pay(3, 40)).toBe('allow'); // 100
    expect(await pay(4, 1)).toBe('deny'); // 101
    expect(await pay(60_999, 1)).toBe('deny'); // the first second's step is still in: 60 + 40 + 1 (denied, still counted) + 1
    expect(await pay(61_000, 1)).toBe('allow'); // it has left: 1 + 1
    expect(await pay(61_001, 98)).toBe('allow'); // 100
    expect(await pay(61_002, 1)).toBe('deny'); // 101
  });

  it('recent_distinct counts distinct values of a field', async () => {
    const { tenant, agent } = await agentWithHistoryRule(t.app, { '>': [{ recent_distinct: ['resource_scope', '1m'] }, 2] });
    const start = stopAtWholeHour(clock);
    const touch = (ms: number, scope: string) => decisionAt(t.app, tenant, start, ms, action(agent.id, { resource_scope: scope }));
    expect(await touch(0, 'repo/a')).toBe('allow');
    expect(await touch(1, 'repo/b')).toBe('allow');
    expect(await touch(2, 'repo/a')).toBe('allow');
    expect(await touch(3, 'repo/c')).toBe('deny');
    expect(await touch(60_999, 'repo/c')).toBe('deny'); // the first second's step is still in: repo/a, repo/b, repo/c
    expect(await touch(61_000, 'repo/c')).toBe('allow'); // it has left: repo/c alone
  });
});

/** The tenant's recorded `budget.threshold` webhooks' data, oldest first. */
const thresholdWebhooks = async (app: TestApp, tenantId: string) =>
  (
    await app.runtime.database.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.tenantId, tenantId), eq(outbox.kind, 'webhook')))
      .orderBy(asc(outbox.createdAt))
  )
    .map(
      (row) =>
        row.payload as { event: string; data: { agent: { id: string }; budget: unknown; used: number; limit: number; threshold: number } },
    )
    .filter((payload) => payload.event === 'budget.threshold')
    .map(({ data }) => ({ agent_id: data.agent.id, budget: data.budget, used: data.used, limit: data.limit, threshold: data.threshold }));

/**
 * A refund budget of 100 an hour (approval past it), a webhook subscribed to `budget.threshold`,
 * and refunds at instants after the test clock's start: returns what the detail and the webhooks say.
 */
async function spendRefundBudget(app: TestApp) {
  const conditions = { '>': [{ recent_sum: ['context.amount', '1h'] }, 100] };
  const { tenant, agent, limit } = await agentWithHistoryRule(app.app, conditions);
  const hook = await client(app).post(tenant.admin, '/api/v1/webhooks', {
    url: 'https://93.184.215.14/hooks',
    events: ['budget.threshold'],
  });
  expect(hook.statusCode, hook.body).toBe(201);
  const start = stopAtWholeHour(clock);
  const refund = (ms: number, amount: number) => decisionAt(app.app, tenant, start, ms, { ...action(agent.id), context: { amount } });
  const budget = { policy_rule_id: limit.id, policy_name: 'History limit', expression: conditions['>'][0] };
  const detail = async () => (await client(app).get(tenant.admin, `/api/v1/agents/${agent.id}`)).json().data.stats.budgets;
  const webhooks = () => thresholdWebhooks(app, tenant.tenantId);
  return { agentId: agent.id as string, refund, budget, detail, webhooks };
}

describe('budgets', () => {
  it("shows each budget's use on the agent detail, and fires budget.threshold as it first reaches 80 and 100 %", async () => {
    const { agentId, refund, budget, detail, webhooks } = await spendRefundBudget(t);
    expect(await detail()).toEqual([{ ...budget, used: 0, limit: 100 }]);
    expect(await refund(0, 50)).toBe('allow'); // 50
    expect(await refund(1, 30)).toBe('allow'); // 80: 80 %
    expect(await refund(2, 10)).toBe('allow'); // 90
    expect(await refund(3, 10)).toBe('allow'); // 100: 100 %
    expect(await refund(4, 5)).toBe('deny'); // 105: past it, and nothing more to tell
    expect(await detail()).toEqual([{ ...budget, used: 105, limit: 100 }]);
    const crossed = { agent_id: agentId, budget, limit: 100 };
    expect(await webhooks()).toEqual([
      { ...crossed, used: 80, threshold: 80 },
      { ...crossed, used: 100, threshold: 100 },
    ]);
    // Once the first minute's step has left the hour, climbing again tells again.
    expect(await refund(3_660_000, 60)).toBe('allow'); // 60
    expect(await refund(3_660_001, 20)).toBe('allow'); // 80: 80 %
    expect(await detail()).toEqual([{ ...budget, used: 80, limit: 100 }]);
    expect((await webhooks()).slice(2)).toEqual([{ ...crossed, used: 80, threshold: 80 }]);
  });

  it('passing both thresholds at once fires both; a rule without a positive limit on a history operator is no budget', async () => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    const rule = await createPolicy(t.app, tenant.admin, agent.id, {
      policy_name: 'Burst',
      conditions: {
        and: [
          { '<=': [{ recent_count: ['1m'] }, 2] },
          { '>=': [0, { recent_count: ['1h'] }] },
          { '<': [{ '+': [{ recent_count: ['1h'] }, 1] }, 5] },
        ],
      },
    });
    const hook = await api.post(tenant.admin, '/api/v1/webhooks', { url: 'https://93.184.215.14/hooks', events: ['budget.threshold'] });
    expect(hook.statusCode, hook.body).toBe(201);
    const budget = { policy_rule_id: rule.id, policy_name: 'Burst', expression: { recent_count: ['1m'] } };
    const detail = async () => (await api.get(tenant.admin, `/api/v1/agents/${agent.id}`)).json().data.stats.budgets;
    expect(await detail()).toEqual([{ ...budget, used: 0, limit: 2 }]);
    stopUntilTestEnds(clock);
    await evaluation(t.app, tenant, action(agent.id)); // 1 of 2: 50 %
    await evaluation(t.app, tenant, action(agent.id)); // 2 of 2: 80 and 100 %
    expect(await detail()).toEqual([{ ...budget, used: 2, limit: 2 }]);
    const crossed = { agent_id: agent.id, budget, used: 2, limit: 2 };
    expect(await thresholdWebhooks(t, tenant.tenantId)).toEqual([
      { ...crossed, threshold: 80 },
      { ...crossed, threshold: 100 },
    ]);
  });
});

describe('the dry run and the what-if', () => {
  it('the dry run counts itself as evaluate would, and records nothing', async () => {
    const { tenant, agent, limit } = await agentWithHistoryRule(t.app, { '>': [{ recent_count: ['1m'] }, 2] });
    stopUntilTestEnds(clock);
    const dryRun = async () => (await api.post(tenant.runtimeKey, '/api/v1/policies/test', action(agent.id))).json();
    expect((await evaluation(t.app, tenant, action(agent.id))).decision).toBe('allow');
    expect(await dryRun()).toMatchObject({ effect: 'allow' });
    expect(await dryRun()).toMatchObject({ effect: 'allow' });
    expect((await evaluation(t.app, tenant, action(agent.id))).decision).toBe('allow');
    expect(await dryRun()).toMatchObject({ effect: 'deny', rule_id: limit.id });
  });

  it('the what-if replays the window in order, each evaluation counting those before it', async () => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    await createPolicy(t.app, tenant.admin, agent.id, { policy_name: 'Writes', priority: 10 });
    const from = new Date(stopUntilTestEnds(clock).getTime() - 1).toISOString();
    for (let i = 0; i < 4; i++) {
      expect((await evaluation(t.app, tenant, action(agent.id))).decision).toBe('allow');
      clock.step(1_000);
    }
    const rule = policyBody(agent.id, {
      policy_name: 'At most 2 a minute',
      policy_effect: 'deny',
      priority: 100,
      conditions: { '>': [{ recent_count: ['1m'] }, 2] },
    });
    const response = await api.post(tenant.admin, '/api/v1/policies/simulate', {
      from,
      to: clock.now().toISOString(),
      agent_id: agent.id,
      changes: [{ action: 'create', rule }],
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data).toMatchObject({ evaluated: 4, changed: 2, transitions: [{ from: 'allow', to: 'deny', count: 2 }] });
  });
});

describe('malformed history operators', () => {
  it.each([
    [{ recent_count: ['1d'] }, 'needs a window written "<n>s", "<n>m" or "<n>h", of at most 24 h'],
    [{ recent_count: ['25h'] }, 'needs a window written "<n>s", "<n>m" or "<n>h", of at most 24 h'],
    [{ recent_count: [{ var: 'context.window' }] }, 'needs a window written "<n>s", "<n>m" or "<n>h", of at most 24 h'],
    [{ recent_count: ['1m', { agent: 'x' }] }, 'filters by operation, target_integration, resource_scope, decision, not "agent"'],
    [{ recent_count: ['1m', { decision: 'maybe' }] }, 'filters "decision" by one of allow, approval_required, deny'],
    [{ recent_sum: ['amount', '1m'] }, 'sums a "context." path'],
    [
      { recent_distinct: ['data_classification', '1m'] },
      'counts one of resource_scope, operation, target_integration or a "context." path',
    ],
    [{ recent_distinct: ['context.__proto__', '1m'] }, 'counts one of resource_scope, operation, target_integration or a "context." path'],
  ])('%j is refused with 400 naming conditions', async (operator, problem) => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    const response = await api.post(tenant.admin, '/api/v1/policies', policyBody(agent.id, { conditions: { '>': [operator, 1] } }));
    const name = Object.keys(operator)[0];
    const message = `conditions.>[0].${name}: ${problem}`;
    expectErrorBody(response, 400, {
      error: 'validation_error',
      message: `Invalid conditions: ${message}`,
      details: { fields: [{ field: 'conditions', message }] },
    });
  });

  it('one stored before it was checked fails closed: the rule denies, named', async () => {
    const { tenant, agent, limit } = await agentWithHistoryRule(t.app, { '>': [{ recent_count: ['1m'] }, 100] });
    await t.runtime.database.db.execute(
      sql`update policy_rules set conditions = '{">": [{"recent_count": ["1d"]}, 100]}' where id = ${limit.id}`,
    );
    const answer = await evaluation(t.app, tenant, action(agent.id));
    expect(answer).toMatchObject({
      decision: 'deny',
      policy_rule_id: limit.id,
      reason:
        'Condition of rule "History limit" could not be evaluated: "recent_count" needs a window written "<n>s", "<n>m" or "<n>h", of at most 24 h; denied',
    });
  });
});

describe('with counters in Redis', () => {
  const SHARED_REDIS = 'redis://127.0.0.1:6379';
  const prefix = `agov-test-${randomUUID()}`;
  const redisClock = new TestClock();
  const apps: TestApp[] = [];
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await dropRedisPrefixes(SHARED_REDIS, [prefix]);
  });

  it('two API processes spend one budget, which holds after Redis loses its data', async () => {
    for (let i = 0; i < 2; i++)
      apps.push(await createTestApp({ clock: redisClock, env: { REDIS_URL: SHARED_REDIS, QUEUE_PREFIX: prefix } }));
    const [a, b] = apps as [TestApp, TestApp];
    const { tenant, agent } = await agentWithHistoryRule(a.app, {
      '>': [{ recent_sum: ['context.amount', '1h'] }, 100],
    });
    const start = stopAtWholeHour(redisClock);
    const pay = async (app: TestApp, ms: number, amount: number) => {
      redisClock.step(start + ms - redisClock.now().getTime());
      return (await evaluation(app.app, tenant, { ...action(agent.id), context: { amount } })).decision;
    };
    expect(await pay(a, 0, 40)).toBe('allow');
    expect(await pay(b, 1, 40)).toBe('allow');
    expect(await pay(a, 2, 30)).toBe('deny'); // 110
    await dropRedisPrefixes(SHARED_REDIS, [prefix]);
    expect(await pay(b, 3, 20)).toBe('deny'); // 130, rebuilt from the traces
    expect(await pay(a, 4, 0)).toBe('deny'); // 130
    expect(await pay(b, 3_600_001, 10)).toBe('deny'); // the first minute's step is still in: 140
    expect(await pay(a, 3_660_000, 10)).toBe('allow'); // it has left: 10 + 10
  });

  it('concurrent evaluations in both processes count each other: the budget is spent exactly once', async () => {
    const [a, b] = apps as [TestApp, TestApp];
    const { tenant, agent } = await agentWithHistoryRule(a.app, { '>': [{ recent_count: ['1m'] }, 3] });
    stopUntilTestEnds(redisClock);
    const answers = await Promise.all([a, b, a, b, a, b, a, b].map((app) => evaluation(app.app, tenant, action(agent.id))));
    expect(answers.filter((answer) => answer.decision === 'allow')).toHaveLength(3);
  });
});

describe('with Redis not answering', () => {
  const unreachable = useTestApp({ env: { REDIS_URL: 'redis://127.0.0.1:1', QUEUE_PREFIX: `agov-test-${randomUUID()}` } });

  it('a rule reading the history fails closed, named; an agent without one is decided as ever', async () => {
    const { tenant, agent, limit } = await agentWithHistoryRule(unreachable.app, { '>': [{ recent_count: ['1m'] }, 100] });
    expect(await evaluation(unreachable.app, tenant, action(agent.id))).toMatchObject({
      decision: 'deny',
      policy_rule_id: limit.id,
      reason:
        'Condition of rule "History limit" could not be evaluated: "recent_count": the agent\'s recent evaluations could not be read; denied',
    });
    const other = await createAgent(unreachable.app, tenant.admin);
    await createPolicy(unreachable.app, tenant.admin, other.id);
    expect((await evaluation(unreachable.app, tenant, action(other.id))).decision).toBe('allow');
  });
});

describe('on embedded PostgreSQL', () => {
  const embedded = useTestApp({
    clock,
    env: { DATABASE_URL: '', DATA_DIR: mkdtempSync(join(tmpdir(), 'agov-history-')), MIGRATE_ON_START: 'true' },
  });

  it('counts concurrent evaluations exactly', async () => {
    const { tenant, agent } = await agentWithHistoryRule(embedded.app, { '>': [{ recent_count: ['1m'] }, 3] });
    stopUntilTestEnds(clock);
    const answers = await Promise.all(Array.from({ length: 8 }, () => evaluation(embedded.app, tenant, action(agent.id))));
    expect(answers.filter((answer) => answer.decision === 'allow')).toHaveLength(3);
  });

  it('shows budgets and fires budget.threshold', async () => {
    const { agentId, refund, budget, detail, webhooks } = await spendRefundBudget(embedded);
    expect(await refund(0, 85)).toBe('allow');
    expect(await refund(1, 20)).toBe('deny');
    expect(await detail()).toEqual([{ ...budget, used: 105, limit: 100 }]);
    const crossed = { agent_id: agentId, budget, limit: 100 };
    expect(await webhooks()).toEqual([
      { ...crossed, used: 85, threshold: 80 },
      { ...crossed, used: 105, threshold: 100 },
    ]);
  });

  it('counts in process memory', async () => {
    const { tenant, agent } = await agentWithHistoryRule(embedded.app, { '>': [{ recent_count: ['1m', { operation: 'write' }] }, 2] });
    const start = stopAtWholeHour(clock);
    const at = (ms: number) => decisionAt(embedded.app, tenant, start, ms, action(agent.id));
    expect(await at(0)).toBe('allow');
    expect(await at(59_999)).toBe('allow');
    expect(await at(60_999)).toBe('deny'); // the step of 0 is still in: 3
    expect(await at(120_000)).toBe('allow'); // the steps from 60 000 on: 60 999 and 120 000
  });
});
