import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dropRedisPrefixes } from '../../../test/processes.js';
import { expectErrorBody } from './assertions.js';
import { client } from './client.js';
import { action, createAgent, createPolicy } from './fixtures.js';
import { createTestApp, signupTenant, type Tenant, TestClock, type TestApp, useTestApp } from './harness.js';
import { stopInWindow, WINDOW_MS } from './rate-limit-support.js';
import { evaluation, traceOf } from './scenarios.js';

/** The agent throttle: per-minute limits on an agent's evaluations, with the decision a request past them gets. */
const clock = new TestClock();
const t = useTestApp({ clock });
const api = client(t);

/** A fresh tenant whose agent, throttled as `limits` says, a rule allows `write` and denies `delete`. */
async function throttledAgent(app: TestApp['app'], limits: Record<string, unknown>) {
  const tenant = await signupTenant(app);
  const agent = await createAgent(app, tenant.admin, limits);
  await createPolicy(app, tenant.admin, agent.id, { policy_effect: 'allow' });
  await createPolicy(app, tenant.admin, agent.id, { operation: 'delete', policy_effect: 'deny', rationale: 'Deletes are never allowed.' });
  return { tenant, agent };
}

const evaluateTimes = async (app: TestApp['app'], tenant: Tenant, body: Record<string, unknown>, times: number) => {
  const answers = [];
  for (let i = 0; i < times; i++) answers.push(await evaluation(app, tenant, body));
  return answers;
};

describe('agent throttle fields', () => {
  it('are off on a new agent, set by PATCH, and kept by a PATCH that leaves them out', async () => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    expect(agent).toMatchObject({ max_requests_per_minute: null, max_identical_requests_per_minute: null, throttle_effect: 'deny' });
    const patched = await api.patch(tenant.admin, `/api/v1/agents/${agent.id}`, {
      max_requests_per_minute: 120,
      max_identical_requests_per_minute: 10,
      throttle_effect: 'approval_required',
    });
    expect(patched.statusCode, patched.body).toBe(200);
    const limits = { max_requests_per_minute: 120, max_identical_requests_per_minute: 10, throttle_effect: 'approval_required' };
    expect(patched.json().data).toMatchObject(limits);
    const renamed = await api.patch(tenant.admin, `/api/v1/agents/${agent.id}`, { description: 'Renamed' });
    expect(renamed.json().data).toMatchObject({ description: 'Renamed', ...limits });
    const lifted = await api.patch(tenant.admin, `/api/v1/agents/${agent.id}`, { max_requests_per_minute: null });
    expect(lifted.json().data).toMatchObject({ max_requests_per_minute: null, max_identical_requests_per_minute: 10 });
  });

  it.each([
    [{ max_requests_per_minute: 0 }, 'max_requests_per_minute', 'must be >= 1'],
    [{ max_identical_requests_per_minute: 2.5 }, 'max_identical_requests_per_minute', 'must be integer'],
    [{ throttle_effect: 'allow' }, 'throttle_effect', 'must be equal to one of the allowed values'],
  ])('refuse %j with 400, changing nothing', async (body, field, message) => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    const response = await api.patch(tenant.admin, `/api/v1/agents/${agent.id}`, body);
    expectErrorBody(response, 400, { error: 'validation_error', message: expect.stringContaining(field), details: expect.anything() });
    expect(response.json().details.fields).toContainEqual({ field, message });
    expect((await api.get(tenant.admin, `/api/v1/agents/${agent.id}`)).json().data).toMatchObject({
      max_requests_per_minute: null,
      max_identical_requests_per_minute: null,
      throttle_effect: 'deny',
    });
  });
});

describe('the loop guard', () => {
  it('denies the 61st identical request of a minute, names the limit, and records agent_throttled', async () => {
    const { tenant, agent } = await throttledAgent(t.app, { max_identical_requests_per_minute: 60 });
    stopInWindow(clock, 0);
    const same = { ...action(agent.id), context: { ticket: 'OPS-1' } };
    const admitted = await evaluateTimes(t.app, tenant, same, 60);
    expect(new Set(admitted.map((answer) => answer.decision))).toEqual(new Set(['allow']));

    const throttled = await evaluation(t.app, tenant, same);
    expect(throttled).toMatchObject({
      decision: 'deny',
      approval_request_id: null,
      policy_rule_id: null,
      reason: 'Agent exceeded max_identical_requests_per_minute: more than 60 identical requests in the last minute',
    });
    const trace = await traceOf(t.app, tenant, throttled.trace_id);
    expect(trace.events.map((event) => event.event_type)).toEqual([
      'trace_initiated',
      'identity_resolved',
      'policy_evaluated',
      'agent_throttled',
      'operation_denied',
      'trace_closed',
    ]);
    expect(trace.events[2]).toMatchObject({ status: 'allow' });
    expect(trace.events[3]).toMatchObject({
      actor_type: 'policy_engine',
      status: 'throttled',
      description: 'Agent exceeded max_identical_requests_per_minute: more than 60 identical requests in the last minute; deny applies',
      metadata: { limit: 'max_identical_requests_per_minute', max: 60, throttle_effect: 'deny' },
    });
    expect(trace.final_outcome).toBe('denied');

    // Another action is not the same loop; the same one is let through once the minute has passed.
    expect((await evaluation(t.app, tenant, { ...same, context: { ticket: 'OPS-2' } })).decision).toBe('allow');
    clock.step(2 * WINDOW_MS);
    expect((await evaluation(t.app, tenant, same)).decision).toBe('allow');
  });
});

describe('the burst guard', () => {
  it('asks for approval past max_requests_per_minute when the agent says so, and never loosens a deny', async () => {
    const { tenant, agent } = await throttledAgent(t.app, { max_requests_per_minute: 3, throttle_effect: 'approval_required' });
    stopInWindow(clock, 0);
    const answers = await evaluateTimes(t.app, tenant, action(agent.id), 3);
    expect(answers.map((answer) => answer.decision)).toEqual(['allow', 'allow', 'allow']);

    const held = await evaluation(t.app, tenant, action(agent.id, { resource_scope: 'repo/other' }));
    const reason = 'Agent exceeded max_requests_per_minute: more than 3 requests in the last minute';
    expect(held).toMatchObject({ decision: 'approval_required', policy_rule_id: null, reason });
    const approval = (await api.get(tenant.admin, `/api/v1/approvals/${held.approval_request_id}`)).json().data;
    expect(approval).toMatchObject({ status: 'pending', flag_reason: reason, approvals_required: 1 });

    const denied = await evaluation(t.app, tenant, action(agent.id, { operation: 'delete' }));
    expect(denied).toMatchObject({ decision: 'deny', reason: 'Deletes are never allowed.' });
    const events = (await traceOf(t.app, tenant, denied.trace_id)).events;
    expect(events.find((event) => event.event_type === 'agent_throttled')).toMatchObject({
      description: "Agent exceeded max_requests_per_minute: more than 3 requests in the last minute; the rules' deny stands",
      metadata: { limit: 'max_requests_per_minute', max: 3, throttle_effect: 'approval_required' },
    });
  });

  it('takes effect at once when set, and counts nothing for an agent without limits', async () => {
    const { tenant, agent } = await throttledAgent(t.app, {});
    stopInWindow(clock, 0);
    expect((await evaluateTimes(t.app, tenant, action(agent.id), 5)).map((answer) => answer.decision)).toEqual(Array(5).fill('allow'));
    const set = await api.patch(tenant.admin, `/api/v1/agents/${agent.id}`, { max_requests_per_minute: 2 });
    expect(set.statusCode, set.body).toBe(200);
    const after = await evaluateTimes(t.app, tenant, action(agent.id), 3);
    expect(after.map((answer) => answer.decision)).toEqual(['allow', 'allow', 'deny']);
  });
});

describe('with counters in Redis', () => {
  const SHARED_REDIS = 'redis://127.0.0.1:6379';
  const prefix = `agov-test-${randomUUID()}`;
  const apps: TestApp[] = [];
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await dropRedisPrefixes(SHARED_REDIS, [prefix]);
  });

  it('two API processes count one agent together', async () => {
    const redisClock = new TestClock();
    for (let i = 0; i < 2; i++)
      apps.push(await createTestApp({ clock: redisClock, env: { REDIS_URL: SHARED_REDIS, QUEUE_PREFIX: prefix } }));
    const [a, b] = apps as [TestApp, TestApp];
    const { tenant, agent } = await throttledAgent(a.app, { max_identical_requests_per_minute: 4 });
    stopInWindow(redisClock, 0);
    const decisions = [];
    for (const app of [a, b, a, b, a, b]) decisions.push((await evaluation(app.app, tenant, action(agent.id))).decision);
    expect(decisions).toEqual(['allow', 'allow', 'allow', 'allow', 'deny', 'deny']);
  });
});

describe('on embedded PostgreSQL', () => {
  const embedded = useTestApp({
    clock,
    env: { DATABASE_URL: '', DATA_DIR: mkdtempSync(join(tmpdir(), 'agov-throttle-')), MIGRATE_ON_START: 'true' },
  });

  it('throttles in process memory', async () => {
    const { tenant, agent } = await throttledAgent(embedded.app, { max_requests_per_minute: 2 });
    stopInWindow(clock, 0);
    const answers = await evaluateTimes(embedded.app, tenant, action(agent.id), 3);
    expect(answers.map((answer) => answer.decision)).toEqual(['allow', 'allow', 'deny']);
  });
});
