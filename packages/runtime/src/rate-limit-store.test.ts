import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judge, LOGIN_QUIET_MS, PER_ADDRESS, type RateCounters } from '@agov/domain';
import { freePort, startRedis } from '../../../test/processes.js';
import { MemoryCounters } from './rate-limit-store-memory.js';
import { RedisCounters } from './rate-limit-store-redis.js';

/*
 * The same cases against both stores: the memory store is the pure arithmetic with
 * bookkeeping, and the Redis store's scripts must agree with it exactly, on a real Redis.
 */
const REDIS_URL = 'redis://127.0.0.1:6379';
const prefix = `agov-test-${randomUUID()}`;
const W = 60_000;
const at = (elapsed: number) => 5_000 * W + elapsed;

let redis: RedisCounters;
let admin: Redis;
beforeAll(async () => {
  redis = await RedisCounters.connect(REDIS_URL, prefix, pino({ level: 'silent' }));
  admin = new Redis(REDIS_URL);
});
afterAll(async () => {
  const keys = await admin.keys(`${prefix}:*`);
  if (keys.length > 0) await admin.del(...keys);
  await admin.quit();
  await redis.close();
});

const stores: [string, () => RateCounters][] = [
  ['memory', () => new MemoryCounters()],
  ['Redis', () => redis],
];

describe.each(stores)('%s counters', (_name, store) => {
  it('count a sliding window: the boundary, refusals not counted, the carried weight, looking without counting', async () => {
    const counters = store();
    const key = `window:${randomUUID()}`;
    const hit = (nowMs: number, counted = true) => counters.hit(key, { limit: 3, windowMs: W, nowMs }, counted);

    expect(await hit(at(30_000), false)).toEqual({ allowed: true, remaining: 3, resetAtMs: at(30_000), retryAtMs: at(30_000) });
    for (const remaining of [2, 1, 0]) {
      expect(await hit(at(30_000))).toEqual({ allowed: true, remaining, resetAtMs: at(2 * W), retryAtMs: at(30_000) });
    }
    const refused = { allowed: false, remaining: 0, resetAtMs: at(2 * W), retryAtMs: at(W + 20_000) };
    expect(await hit(at(30_001))).toEqual(refused);
    expect(await hit(at(59_999))).toEqual(refused);
    // Into the next window only the fading count is left: it is all forgotten when this window ends.
    expect(await hit(at(W + 19_999))).toEqual(refused);
    expect(await hit(at(W + 20_000))).toEqual({ allowed: true, remaining: 0, resetAtMs: at(3 * W), retryAtMs: at(W + 20_000) });
    expect(await hit(at(W + 20_000), false)).toMatchObject({ allowed: false, remaining: 0 });
    expect(await hit(at(3 * W))).toEqual({ allowed: true, remaining: 2, resetAtMs: at(5 * W), retryAtMs: at(3 * W) });
  });

  it('take back a counted request, in its own window and once the next began, never below nothing', async () => {
    const counters = store();
    const key = `withdraw:${randomUUID()}`;
    const query = (nowMs: number) => ({ limit: 3, windowMs: W, nowMs });
    const hit = (nowMs: number) => counters.hit(key, query(nowMs), true);
    for (let i = 0; i < 3; i += 1) await hit(at(10_000));
    expect(await hit(at(10_000))).toMatchObject({ allowed: false });
    await counters.withdraw(key, query(at(10_000)));
    expect(await hit(at(20_000))).toMatchObject({ allowed: true, remaining: 0 });
    // Half into the next window the three weigh one and a half: one more fits, not two.
    expect(await hit(at(W + 30_000))).toMatchObject({ allowed: true });
    expect(await hit(at(W + 30_000))).toMatchObject({ allowed: false });
    // Taken back from the window it was counted in, now the previous one: it weighs half as much.
    await counters.withdraw(key, query(at(20_000)));
    expect(await hit(at(W + 30_000))).toMatchObject({ allowed: true });
    expect(await hit(at(W + 30_000))).toMatchObject({ allowed: false });

    const unused = `withdraw:${randomUUID()}`;
    await counters.withdraw(unused, query(at(0)));
    for (const remaining of [2, 1, 0]) expect(await counters.hit(unused, query(at(0)), true)).toMatchObject({ allowed: true, remaining });
    expect(await counters.hit(unused, query(at(0)), true)).toMatchObject({ allowed: false });
  });

  it('let sign-in attempts through until five, then hold the account back for 2 s, 4 s …, and forget on request', async () => {
    const counters = store();
    const attempt = (key: string, nowMs: number, enforced = true) => counters.attemptLogin(key, nowMs, PER_ADDRESS, enforced);
    const key = `login:${randomUUID()}`;
    for (let i = 0; i < 5; i += 1) expect(await attempt(key, at(0))).toEqual({ admitted: true, retryAtMs: at(0), priorFailures: i });
    expect(await attempt(key, at(1_999))).toEqual({ admitted: false, retryAtMs: at(2_000), priorFailures: 5 });
    expect(await attempt(key, at(2_000))).toEqual({ admitted: true, retryAtMs: at(2_000), priorFailures: 5 });
    expect(await attempt(key, at(2_000))).toEqual({ admitted: false, retryAtMs: at(6_000), priorFailures: 6 });
    // Not enforced: admitted while held back, and counted.
    expect(await attempt(key, at(2_000), false)).toEqual({ admitted: true, retryAtMs: at(2_000), priorFailures: 6 });
    expect(await attempt(key, at(9_999))).toEqual({ admitted: false, retryAtMs: at(10_000), priorFailures: 7 });
    // Forgotten after its delay and the quiet time.
    expect(await attempt(key, at(10_000 + LOGIN_QUIET_MS))).toEqual({
      admitted: true,
      retryAtMs: at(10_000 + LOGIN_QUIET_MS),
      priorFailures: 0,
    });

    const other = `login:${randomUUID()}`;
    for (let i = 0; i < 5; i += 1) await attempt(other, at(0));
    await counters.forgetLogin(other);
    expect(await attempt(other, at(0))).toEqual({ admitted: true, retryAtMs: at(0), priorFailures: 0 });
  });

  it("keep an hour's count while keys of one-minute windows come and go", async () => {
    const counters = store();
    const hour = 60 * W;
    const start = 100 * hour;
    const key = `hourly:${randomUUID()}`;
    const hit = (nowMs: number) => counters.hit(key, { limit: 2, windowMs: hour, nowMs }, true);

    expect(await hit(start)).toMatchObject({ allowed: true, remaining: 1 });
    await counters.hit(`minute:${randomUUID()}`, { limit: 1, windowMs: W, nowMs: start + 5 * W }, true);
    expect(await hit(start + 6 * W)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await hit(start + 7 * W)).toMatchObject({ allowed: false, remaining: 0 });
  });
});

describe('the Redis sliding-window script', () => {
  it('decides exactly as the arithmetic does, for any counts, limit and instant', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1_000 }),
        fc.integer({ min: 0, max: 1_500 }),
        fc.integer({ min: 0, max: 1_000 }),
        fc.integer({ min: 0, max: W - 1 }),
        fc.boolean(),
        async (limit, previous, current, elapsed, counted) => {
          const key = `seeded:${randomUUID()}`;
          await admin.set(`${prefix}:rl:${key}:4999`, previous);
          await admin.set(`${prefix}:rl:${key}:5000`, current);
          const query = { limit, windowMs: W, nowMs: at(elapsed) };
          const expected = judge({ previous, current }, query, counted);
          expect(await redis.hit(key, query, counted)).toEqual(expected);
          expect(Number(await admin.get(`${prefix}:rl:${key}:5000`))).toBe(current + (expected.allowed && counted ? 1 : 0));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('judges requests made at once in one call, each on the counts the ones before it left, as memory does one after the other', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.record({ key: fc.integer({ min: 0, max: 2 }), afterMs: fc.integer({ min: 0, max: 20_000 }), counted: fc.boolean() }), {
          minLength: 2,
          maxLength: 40,
        }),
        async (limit, requests) => {
          const keys = [0, 1, 2].map(() => `together:${randomUUID()}`);
          // From half a minute before a window's end, so that most runs cross into the next window.
          let nowMs = at(W - 30_000);
          const queries = requests.map(({ key, afterMs, counted }) => {
            nowMs += afterMs;
            return { key: keys[key]!, query: { limit, windowMs: W, nowMs }, counted };
          });
          // Asked at once: the first call carries the first request, the next one all the others.
          const together = await Promise.all(queries.map(({ key, query, counted }) => redis.hit(key, query, counted)));
          const memory = new MemoryCounters();
          const oneAfterTheOther = [];
          for (const { key, query, counted } of queries) oneAfterTheOther.push(await memory.hit(key, query, counted));
          expect(together).toEqual(oneAfterTheOther);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('Redis counters on a Redis that stops answering', () => {
  it('count the requests waiting behind a call that timed out in memory at once, with no call of their own', async () => {
    const port = await freePort();
    const server = await startRedis(port);
    const counters = await RedisCounters.connect(`redis://127.0.0.1:${port}`, prefix, pino({ level: 'silent' }));
    const probe = new Redis(`redis://127.0.0.1:${port}`);
    const query = { limit: 100, windowMs: W, nowMs: at(0) };
    try {
      expect(await counters.hit('hung', query, true)).toMatchObject({ allowed: true, remaining: 99 });
      await probe.config('RESETSTAT');
      server.child.kill('SIGSTOP');
      // The first request's call waits for its timeout; the nine others queue behind it meanwhile.
      const verdicts = await Promise.all(Array.from({ length: 10 }, () => counters.hit('hung', query, true)));
      expect(verdicts.map((verdict) => verdict.remaining).sort((a, b) => b - a)).toEqual([99, 98, 97, 96, 95, 94, 93, 92, 91, 90]);
      expect(counters.degraded).toBe(true);
      server.child.kill('SIGCONT');
      const scriptCalls = [...(await probe.info('commandstats')).matchAll(/^cmdstat_eval(?:sha)?:calls=(\d+)/gm)].map((found) =>
        Number(found[1]),
      );
      expect(scriptCalls.reduce((sum, calls) => sum + calls, 0)).toBe(1);
    } finally {
      server.child.kill('SIGCONT');
      await counters.close();
      probe.disconnect();
      await server.stop('SIGKILL');
    }
  });
});
