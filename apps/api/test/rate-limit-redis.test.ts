import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { dropRedisPrefixes, freePort, startRedis, type Started } from '../../../test/processes.js';
import { action, createAgent, createPolicy } from './fixtures.js';
import { createTestApp, request, signupTenant, TestClock, type Tenant, type TestApp } from './harness.js';
import { expectLimitHeaders, expectRateLimited, stopInWindow, WINDOW_MS } from './rate-limit-support.js';

/*
 * Counters in Redis. Two app instances stand in for two API processes (as in
 * cross-process-caches.test.ts): each has its own runtime, Redis connection and in-memory
 * counters, so whatever they count together goes through Redis. Each test has a key prefix of
 * its own, removed at the end.
 */
const SHARED_REDIS = 'redis://127.0.0.1:6379';
const READ = 3;
const clock = new TestClock();
const prefixes: string[] = [];
const apps: TestApp[] = [];
const servers: Started[] = [];

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
  for (const server of servers.splice(0)) await server.stop('SIGKILL');
});
afterAll(async () => {
  await dropRedisPrefixes(SHARED_REDIS, prefixes);
});

async function instance(redisUrl: string, prefix: string, env: Record<string, string> = {}) {
  const app = await createTestApp({ clock, env: { REDIS_URL: redisUrl, QUEUE_PREFIX: prefix, RATE_LIMIT_READ: String(READ), ...env } });
  apps.push(app);
  return app;
}

function freshPrefix() {
  const prefix = `agov-test-${randomUUID()}`;
  prefixes.push(prefix);
  return prefix;
}

const me = (app: TestApp, tenant: Tenant) => request(app.app, tenant.runtimeKey, { method: 'GET', url: '/api/v1/auth/me' });
const health = (app: TestApp) => app.app.inject({ method: 'GET', url: '/health' });
const readRefused = { category: 'read', limit: READ, message: `Rate limit exceeded: ${READ} read requests per minute` };

describe('counters in Redis', () => {
  it('are shared: two API instances count one window together', async () => {
    const prefix = freshPrefix();
    const a = await instance(SHARED_REDIS, prefix);
    const b = await instance(SHARED_REDIS, prefix);
    const tenant = await signupTenant(a.app);
    const start = stopInWindow(clock, 0);

    expectLimitHeaders(await me(a, tenant), READ, 2, start + 2 * WINDOW_MS);
    expectLimitHeaders(await me(b, tenant), READ, 1, start + 2 * WINDOW_MS);
    expectLimitHeaders(await me(a, tenant), READ, 0, start + 2 * WINDOW_MS);
    const retry = { ...readRefused, nowMs: start, retryAtMs: start + WINDOW_MS + 20_000 };
    expectRateLimited(await me(b, tenant), retry);
    expectRateLimited(await me(a, tenant), retry);

    // The window slides on Redis as in memory, by the test clock the instants come from.
    clock.step(WINDOW_MS + 20_000);
    expectLimitHeaders(await me(b, tenant), READ, 0, start + 3 * WINDOW_MS);
    expect((await me(a, tenant)).statusCode).toBe(429);
  });

  it('fall back to each process counting alone while Redis is down, reported by /health, and go back when it returns', async () => {
    const port = await freePort();
    const redisUrl = `redis://127.0.0.1:${port}`;
    servers.push(await startRedis(port));
    const api = await instance(redisUrl, freshPrefix());
    const tenant = await signupTenant(api.app);
    const start = stopInWindow(clock, 0);
    const fellBack = () => api.logs.filter((line) => line.includes('rate limits: Redis unreachable')).length;
    const cameBack = () => api.logs.filter((line) => line.includes('rate limits: Redis answers again')).length;

    expect((await health(api)).json()).toEqual({ status: 'ok' });
    expectLimitHeaders(await me(api, tenant), READ, 2, start + 2 * WINDOW_MS);

    await servers.pop()!.stop('SIGKILL');
    // Never turned away for Redis: the limit now holds in this process, counted from nothing.
    for (const remaining of [2, 1, 0]) {
      const served = await me(api, tenant);
      expect(served.statusCode, served.body).toBe(200);
      expectLimitHeaders(served, READ, remaining, start + 2 * WINDOW_MS);
    }
    expectRateLimited(await me(api, tenant), { ...readRefused, nowMs: start, retryAtMs: start + WINDOW_MS + 20_000 });
    const degraded = await health(api);
    expect(degraded.statusCode).toBe(200);
    expect(degraded.json()).toEqual({ status: 'degraded', degraded: ['rate_limit_counters'] });
    expect(fellBack()).toBe(1);
    expect(cameBack()).toBe(0);

    servers.push(await startRedis(port));
    // ioredis reconnects with a growing pause (at most 2 s); each probe asks Redis once it is connected.
    const deadline = Date.now() + 15_000;
    while ((await health(api)).json().status !== 'ok' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await health(api)).json()).toEqual({ status: 'ok' });
    expect([fellBack(), cameBack()]).toEqual([1, 1]);
    // Counted in Redis again, which restarted empty; the process's own count (at the limit) is left behind.
    expectLimitHeaders(await me(api, tenant), READ, 2, start + 2 * WINDOW_MS);
  });

  it("judge an evaluation's limit and its agent's history in one call, counted together by two instances", async () => {
    const prefix = freshPrefix();
    const env = { RATE_LIMIT_EVALUATE: '3' };
    const a = await instance(SHARED_REDIS, prefix, env);
    const b = await instance(SHARED_REDIS, prefix, env);
    const tenant = await signupTenant(a.app);
    const agent = await createAgent(a.app, tenant.admin);
    await createPolicy(a.app, tenant.admin, agent.id, { policy_name: 'Writes', priority: 10 });
    await createPolicy(a.app, tenant.admin, agent.id, {
      operation: '*',
      policy_name: 'Busy',
      policy_effect: 'deny',
      rationale: 'Too many in an hour.',
      priority: 100,
      conditions: { '>': [{ recent_count: ['1h'] }, 4] },
    });
    const evaluate = async (on: TestApp) => {
      const response = await request(on.app, tenant.runtimeKey, { method: 'POST', url: '/api/v1/evaluate', payload: action(agent.id) });
      return response.statusCode === 200 ? (response.json().decision as string) : response.statusCode;
    };
    stopInWindow(clock, 0);
    // The first evaluation finds the agent's term missing, and rebuilds it from the traces.
    expect(await evaluate(a)).toBe('allow');

    // Every call to Redis about the window or the history from here, as Redis received it (not those a script made).
    const watcher = new Redis(SHARED_REDIS);
    const monitor = await watcher.monitor();
    const calls: string[][] = [];
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (source !== 'lua' && args.some((arg) => arg.startsWith(`${prefix}:rl:`) || arg.startsWith(`${prefix}:history:`))) calls.push(args);
    });
    try {
      expect(await evaluate(b)).toBe('allow');
      expect(await evaluate(a)).toBe('allow');
      expect(await evaluate(b)).toBe(429);
      expect(await evaluate(a)).toBe(429);
      // b knows its refusal until the window admits again: refused on arrival, without a call.
      expect(await evaluate(b)).toBe(429);
      const marker = `${prefix}:rl:marker`;
      await watcher.duplicate().exists(marker);
      await expect.poll(() => calls.at(-1)?.includes(marker), { timeout: 5_000 }).toBe(true);
      const evaluations = calls.slice(0, -1);
      expect(evaluations).toHaveLength(4);
      for (const call of evaluations) {
        expect(call.some((arg) => arg.startsWith(`${prefix}:rl:tenant:${tenant.tenantId}:evaluate:`))).toBe(true);
        expect(call.some((arg) => arg.startsWith(`${prefix}:history:${agent.id}:`))).toBe(true);
      }
    } finally {
      monitor.disconnect();
      watcher.disconnect();
    }

    // The refused were counted nowhere: the fourth evaluation in the hour is allowed, the fifth is past the rule's four.
    clock.step(WINDOW_MS + 20_000);
    expect(await evaluate(b)).toBe('allow');
    clock.step(WINDOW_MS);
    expect(await evaluate(a)).toBe('deny');
  });
});
