import { describe, expect, it } from 'vitest';
import { expectErrorBody } from './assertions.js';
import { client } from './client.js';
import { action, createAgent, createPolicy } from './fixtures.js';
import { createTestApp, useTestApp, keyWithScopes, request, signupTenant, TestClock, type Tenant } from './harness.js';
import { expectLimitHeaders, expectRateLimited, stopInWindow, WINDOW_MS } from './rate-limit-support.js';

/*
 * Per-tenant limits in memory (no REDIS_URL), with small figures from the environment and a
 * stopped test clock, so that every count, header and instant is exact.
 */
const EVALUATE = 3;
const READ = 4;
const clock = new TestClock();
const t = useTestApp({ clock, env: { RATE_LIMIT_EVALUATE: String(EVALUATE), RATE_LIMIT_READ: String(READ) } });

const evaluateAs = (tenant: Tenant, agentId: string) =>
  request(t.app, tenant.runtimeKey, { method: 'POST', url: '/api/v1/evaluate', payload: action(agentId) });

async function tenantWithAgent() {
  const tenant = await signupTenant(t.app);
  const agent = await createAgent(t.app, tenant.admin);
  return { tenant, agentId: agent.id as string };
}

const evaluateMessage = `Rate limit exceeded: ${EVALUATE} evaluate requests per minute`;

describe('per-tenant limit on evaluate', () => {
  it(`admits exactly ${EVALUATE} evaluations in a window, each with its headers, and refuses the next with 429`, async () => {
    const { tenant, agentId } = await tenantWithAgent();
    const start = stopInWindow(clock, 30_000);
    // Everything counted in this window is forgotten once the next window has passed too.
    const resetAt = start + 2 * WINDOW_MS;

    for (let remaining = EVALUATE - 1; remaining >= 0; remaining -= 1) {
      const admitted = await evaluateAs(tenant, agentId);
      expect(admitted.statusCode, admitted.body).toBe(200);
      expect(admitted.json().decision).toBe('deny');
      expectLimitHeaders(admitted, EVALUATE, remaining, resetAt);
    }

    // Three requests in this window weigh 3 × (1 − 20/60) = 2 at 20 s into the next: room for one.
    expectRateLimited(await evaluateAs(tenant, agentId), {
      category: 'evaluate',
      limit: EVALUATE,
      message: evaluateMessage,
      nowMs: start + 30_000,
      retryAtMs: start + WINDOW_MS + 20_000,
    });
  });

  it('does not count refused requests: the window admits again at the announced instant, and not a millisecond before', async () => {
    const { tenant, agentId } = await tenantWithAgent();
    const start = stopInWindow(clock, 0);
    for (let i = 0; i < EVALUATE; i += 1) expect((await evaluateAs(tenant, agentId)).statusCode).toBe(200);
    for (let i = 0; i < 5; i += 1) expect((await evaluateAs(tenant, agentId)).statusCode).toBe(429);

    clock.step(WINDOW_MS + 20_000 - 1);
    expect((await evaluateAs(tenant, agentId)).statusCode).toBe(429);
    clock.step(1);
    const admitted = await evaluateAs(tenant, agentId);
    expect(admitted.statusCode, admitted.body).toBe(200);
    // ⌈3 × 40/60⌉ = 2 carried + 1 now = the limit; this window's request is forgotten two windows on.
    expectLimitHeaders(admitted, EVALUATE, 0, start + 3 * WINDOW_MS);
    expect((await evaluateAs(tenant, agentId)).statusCode).toBe(429);
  });

  it("slides: the previous window's requests weigh by how much of it the last minute still covers", async () => {
    const { tenant, agentId } = await tenantWithAgent();
    const start = stopInWindow(clock, 50_000);
    for (let i = 0; i < EVALUATE; i += 1) expect((await evaluateAs(tenant, agentId)).statusCode).toBe(200);

    // 10 s later the last minute still holds all three: refused, although a fixed window would have reset.
    clock.step(10_000);
    expectRateLimited(await evaluateAs(tenant, agentId), {
      category: 'evaluate',
      limit: EVALUATE,
      message: evaluateMessage,
      nowMs: start + WINDOW_MS,
      retryAtMs: start + WINDOW_MS + 20_000,
    });

    // 40 s into the next window they weigh ⌈3 × 20/60⌉ = 1: two requests fit.
    clock.step(40_000);
    const first = await evaluateAs(tenant, agentId);
    expectLimitHeaders(first, EVALUATE, 1, start + 3 * WINDOW_MS);
    const second = await evaluateAs(tenant, agentId);
    expectLimitHeaders(second, EVALUATE, 0, start + 3 * WINDOW_MS);
    expect((await evaluateAs(tenant, agentId)).statusCode).toBe(429);

    // Two windows on, nothing of the first is left and the second's two weigh ⌈2 × 30/60⌉ = 1.
    clock.step(50_000);
    expectLimitHeaders(await evaluateAs(tenant, agentId), EVALUATE, 1, start + 4 * WINDOW_MS);
  });

  it('counts each tenant on its own', async () => {
    const a = await tenantWithAgent();
    const b = await tenantWithAgent();
    const start = stopInWindow(clock, 5_000);
    for (let i = 0; i < EVALUATE; i += 1) expect((await evaluateAs(a.tenant, a.agentId)).statusCode).toBe(200);
    expect((await evaluateAs(a.tenant, a.agentId)).statusCode).toBe(429);

    const other = await evaluateAs(b.tenant, b.agentId);
    expect(other.statusCode).toBe(200);
    expectLimitHeaders(other, EVALUATE, EVALUATE - 1, start + 2 * WINDOW_MS);
  });
});

describe("evaluate's limit, judged by its handler with the first call it makes to the counters", () => {
  const refusedAt = (nowMs: number, retryAtMs: number) => ({
    category: 'evaluate',
    limit: EVALUATE,
    message: evaluateMessage,
    nowMs,
    retryAtMs,
  });

  it('counts a request answered before its handler judged it (invalid, unknown agent, forbidden), and refuses it with 429 once the window is full', async () => {
    const { tenant, agentId } = await tenantWithAgent();
    const start = stopInWindow(clock, 0);
    const resetAt = start + 2 * WINDOW_MS;
    const evaluate = (payload: object, credential = tenant.runtimeKey) =>
      request(t.app, credential, { method: 'POST', url: '/api/v1/evaluate', payload });

    const invalid = await evaluate({ agent_id: agentId });
    expect(invalid.statusCode).toBe(400);
    expectLimitHeaders(invalid, EVALUATE, 2, resetAt);
    const unknown = await evaluate(action('00000000-0000-4000-8000-000000000000'));
    expect(unknown.statusCode).toBe(404);
    expectLimitHeaders(unknown, EVALUATE, 1, resetAt);
    const forbidden = await evaluate(action(agentId), await keyWithScopes(t.app, tenant, ['agents:read']));
    expect(forbidden.statusCode).toBe(403);
    expectLimitHeaders(forbidden, EVALUATE, 0, resetAt);

    // The window is full: the next invalid request is refused as its error is answered, and the one after on arrival.
    const retryAtMs = start + WINDOW_MS + 20_000;
    expectRateLimited(await evaluate({ agent_id: agentId }), refusedAt(start, retryAtMs));
    expectRateLimited(await evaluate(action(agentId)), refusedAt(start, retryAtMs));
  });

  it('lets an Idempotency-Key refused with 429 go, so that a retry once admitted does the work; a replay counts, and is refused in a full window', async () => {
    const { tenant, agentId } = await tenantWithAgent();
    const start = stopInWindow(clock, 0);
    const withKey = () =>
      request(t.app, tenant.runtimeKey, {
        method: 'POST',
        url: '/api/v1/evaluate',
        payload: action(agentId),
        headers: { 'idempotency-key': 'evaluate-once' },
      });
    for (let i = 0; i < EVALUATE; i += 1) expect((await evaluateAs(tenant, agentId)).statusCode).toBe(200);
    expectRateLimited(await withKey(), refusedAt(start, start + WINDOW_MS + 20_000));

    clock.step(WINDOW_MS + 20_000);
    const first = await withKey();
    expect(first.statusCode, first.body).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // ⌈3 × 40/60⌉ = 2 carried + the first: the replay finds the window full.
    expectRateLimited(await withKey(), refusedAt(start + WINDOW_MS + 20_000, start + WINDOW_MS + 40_000));

    clock.step(20_000);
    const replay = await withKey();
    expect([replay.statusCode, replay.headers['idempotent-replayed'], replay.body]).toEqual([200, 'true', first.body]);
    expectLimitHeaders(replay, EVALUATE, 0, start + 3 * WINDOW_MS);
  });

  it("does not count a refused evaluation in the agent's history", async () => {
    const { tenant, agentId } = await tenantWithAgent();
    await createPolicy(t.app, tenant.admin, agentId, { policy_name: 'Writes', priority: 10 });
    const past = EVALUATE + 1;
    await createPolicy(t.app, tenant.admin, agentId, {
      operation: '*',
      policy_name: 'Busy',
      policy_effect: 'deny',
      rationale: 'Too many in an hour.',
      priority: 100,
      conditions: { '>': [{ recent_count: ['1h'] }, past] },
    });
    stopInWindow(clock, 0);
    const decided = async () => {
      const response = await evaluateAs(tenant, agentId);
      expect(response.statusCode, response.body).toBe(200);
      return response.json().decision as string;
    };
    for (let i = 0; i < EVALUATE; i += 1) expect(await decided()).toBe('allow');
    for (let i = 0; i < 5; i += 1) expect((await evaluateAs(tenant, agentId)).statusCode).toBe(429);
    clock.step(WINDOW_MS + 20_000);
    // The fourth evaluation in the hour: with the five refused it would be the ninth, past the rule's four.
    expect(await decided()).toBe('allow');
    clock.step(WINDOW_MS);
    expect(await decided()).toBe('deny');
  });
});

describe('categories and headers on every response', () => {
  it('counts reads apart from evaluations, and puts the headers on successes and errors alike', async () => {
    const { tenant, agentId } = await tenantWithAgent();
    const start = stopInWindow(clock, 1_000);
    const resetAt = start + 2 * WINDOW_MS;
    for (let i = 0; i < EVALUATE; i += 1) expect((await evaluateAs(tenant, agentId)).statusCode).toBe(200);

    const api = client(t.app);
    const listed = await api.get(tenant.admin, '/api/v1/agents');
    expect(listed.statusCode).toBe(200);
    expectLimitHeaders(listed, READ, 3, resetAt);

    const missing = await api.get(tenant.admin, '/api/v1/agents/00000000-0000-4000-8000-000000000000');
    expectErrorBody(missing, 404, { error: 'not_found', message: 'Agent not found' });
    expectLimitHeaders(missing, READ, 2, resetAt);

    const invalid = await api.get(tenant.admin, '/api/v1/agents?limit=0');
    expect(invalid.statusCode).toBe(400);
    expectLimitHeaders(invalid, READ, 1, resetAt);

    // A key without the scope is still the tenant's request: counted, then refused with 403.
    const key = await keyWithScopes(t.app, tenant, ['evaluate']);
    const forbidden = await api.get(key, '/api/v1/agents');
    expect(forbidden.statusCode).toBe(403);
    expectLimitHeaders(forbidden, READ, 0, resetAt);

    expectRateLimited(await api.get(tenant.admin, '/api/v1/agents'), {
      category: 'read',
      limit: READ,
      message: `Rate limit exceeded: ${READ} read requests per minute`,
      nowMs: start + 1_000,
      // Four reads this window weigh ⌈4 × (1 − e/60 s)⌉ ≤ 3 from e = 15 s into the next.
      retryAtMs: start + WINDOW_MS + 15_000,
    });
  });

  it("applies the plan's figures when the environment sets none", async () => {
    const planned = await createTestApp({ env: { RATE_LIMIT_EVALUATE: '', RATE_LIMIT_READ: '', RATE_LIMIT_WRITE: '' } });
    try {
      const tenant = await signupTenant(planned.app);
      const api = client(planned.app);
      // The admin's signup and this create are writes; the free plan allows 120 a minute.
      const created = await api.post(tenant.admin, '/api/v1/agents', {});
      expect(created.statusCode).toBe(400);
      expect(created.headers['x-ratelimit-limit']).toBe('120');
      expect(created.headers['x-ratelimit-remaining']).toBe('119');
      const read = await api.get(tenant.admin, '/api/v1/agents');
      expect([read.headers['x-ratelimit-limit'], read.headers['x-ratelimit-remaining']]).toEqual(['600', '599']);
      const evaluated = await request(planned.app, tenant.runtimeKey, { method: 'POST', url: '/api/v1/evaluate', payload: {} });
      expect([evaluated.statusCode, evaluated.headers['x-ratelimit-limit']]).toEqual([400, '120']);
    } finally {
      await planned.close();
    }
  });
});
