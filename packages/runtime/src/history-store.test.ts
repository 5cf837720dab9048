import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { historyTerm, judge, type HistoryCounters, type HistoryEntry, type HistoryTerm, type PolicyEffect } from '@agov/domain';
import { MemoryHistory } from './history-store-memory.js';
import { RedisHistory } from './history-store-redis.js';
import { MemoryCounters } from './rate-limit-store-memory.js';
import { RedisCounters } from './rate-limit-store-redis.js';

/*
 * Both history stores against the definition of a term's value, written out naively over every
 * evaluation (docs/rate-limits.md, "History counters"): an evaluation at `t` counts at `now` when
 * floor(t / step) >= floor((now - window) / step). Random evaluations, clocks and decisions; the
 * memory store is the domain's TermTally, and the Redis store's scripts must agree with it on a
 * real Redis, also after both lost what they held and rebuilt from the recorded evaluations.
 */
const REDIS_URL = 'redis://127.0.0.1:6379';
const prefix = `agov-test-${randomUUID()}`;
let connection: Redis;
let counters: RedisCounters;
beforeAll(async () => {
  connection = new Redis(REDIS_URL);
  counters = await RedisCounters.connect(REDIS_URL, prefix, pino({ level: 'silent' }));
});
afterAll(async () => {
  const keys = await connection.keys(`${prefix}:*`);
  if (keys.length > 0) await connection.del(...keys);
  await connection.quit();
  await counters.close();
});
const memoryStore = () => new MemoryHistory(new MemoryCounters());

const term = (kind: HistoryTerm['kind'], operand: unknown[]): HistoryTerm => {
  const made = historyTerm(kind, operand);
  if (!('key' in made)) throw new Error(made.problem);
  return made;
};
const TERMS = [
  term('recent_count', ['10s']),
  term('recent_count', ['2m', { decision: 'deny' }]),
  term('recent_sum', ['context.amount', '90s', { resource_scope: 'repo/*' }]),
  term('recent_distinct', ['resource_scope', '1m']),
  term('recent_distinct', ['context.amount', '1h', { decision: 'allow' }]),
];

/** The definition: each term's value at `nowMs` over `entries`, written out. */
function naive(entries: readonly HistoryEntry[], nowMs: number) {
  return TERMS.map((t) => {
    const step = Math.max(1_000, Math.floor(t.windowMs / 60_000) * 1_000);
    const counted = entries.filter(
      (entry) =>
        Math.floor(entry.atMs / step) >= Math.floor((nowMs - t.windowMs) / step) &&
        (t.filter.decision === undefined || t.filter.decision === entry.decision) &&
        (t.filter.resource_scope === undefined || entry.resource_scope.startsWith('repo/')),
    );
    if (t.kind === 'recent_count') return counted.length;
    if (t.kind === 'recent_sum')
      return counted.reduce((sum, entry) => sum + (typeof entry.context.amount === 'number' ? entry.context.amount : 0), 0);
    const field = (entry: HistoryEntry) => (t.field === 'resource_scope' ? entry.resource_scope : entry.context.amount);
    return new Set(counted.map((entry) => JSON.stringify(field(entry))).filter((value) => value !== undefined)).size;
  });
}

const step = fc.record({
  elapsedMs: fc.oneof(fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 0, max: 70_000 })),
  scope: fc.constantFrom('repo/a', 'repo/b', 'docs/c'),
  amount: fc.oneof(fc.integer({ min: -3, max: 50 }), fc.constant('many')),
  decision: fc.constantFrom<PolicyEffect>('allow', 'deny', 'approval_required'),
  reserve: fc.boolean(),
  forgetAll: fc.boolean(),
});

it('both stores give each term the value its definition gives, before and with each evaluation, also once rebuilt', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), fc.integer({ min: 0, max: 3_599_999 }), async (steps, offset) => {
      const agentId = randomUUID();
      let stores: HistoryCounters[] = [memoryStore(), new RedisHistory(counters, prefix)];
      const recorded: HistoryEntry[] = [];
      const fromRecorded = async (sinceMs: number) => recorded.filter((entry) => entry.atMs > sinceMs);
      let nowMs = 1_800_000_000_000 + offset;
      for (const [index, { elapsedMs, scope, amount, decision, reserve, forgetAll }] of steps.entries()) {
        nowMs += elapsedMs;
        const entry: HistoryEntry = {
          atMs: nowMs,
          operation: 'write',
          target_integration: 'github',
          resource_scope: scope,
          decision: null,
          context: { amount },
        };
        const before = naive(recorded, nowMs);
        const after = naive([...recorded, entry], nowMs);
        const expected = TERMS.map((_, i) => ({ before: before[i], after: after[i] }));
        for (const store of stores) {
          expect(await store.read(agentId, { terms: TERMS, nowMs, entry, reserve }, fromRecorded)).toEqual(expected);
          if (reserve) await store.settle(agentId, TERMS, entry, decision);
        }
        if (reserve) recorded.push({ ...entry, decision });
        // Both lose what they held: the next read rebuilds every term from what was recorded.
        if (forgetAll && index % 5 === 4) {
          await connection.del(...(await connection.keys(`${prefix}:history:${agentId}:*`)));
          stores = [memoryStore(), stores[1]!];
        }
      }
    }),
    { numRuns: 60 },
  );
}, 120_000);

it('a reserved evaluation whose trace was not written is forgotten: the terms are rebuilt from what was recorded', async () => {
  const agentId = randomUUID();
  const recorded: HistoryEntry[] = [];
  const nowMs = 1_800_000_000_000;
  const entry = (): HistoryEntry => ({
    atMs: nowMs,
    operation: 'write',
    target_integration: 'github',
    resource_scope: 'repo/a',
    decision: null,
    context: { amount: 7 },
  });
  for (const store of [memoryStore(), new RedisHistory(counters, prefix)]) {
    const read = () => store.read(agentId, { terms: [TERMS[0]!], nowMs, entry: null, reserve: false }, async () => recorded);
    await store.read(agentId, { terms: [TERMS[0]!], nowMs, entry: entry(), reserve: true }, async () => recorded);
    await store.settle(agentId, [TERMS[0]!], entry(), 'allow');
    recorded.push({ ...entry(), decision: 'allow' });
    await store.read(agentId, { terms: [TERMS[0]!], nowMs, entry: entry(), reserve: true }, async () => recorded);
    expect(await read()).toEqual([{ before: 2, after: 2 }]);
    await store.settle(agentId, [TERMS[0]!], entry(), null);
    expect(await read()).toEqual([{ before: 1, after: 1 }]);
    recorded.length = 0;
  }
});

it('a term held in Redis lives until the step it last counted in has left its window, renewed once a step', async () => {
  const agentId = randomUUID();
  const store = new RedisHistory(counters, prefix);
  const hour = term('recent_distinct', ['resource_scope', '1h']); // steps of 1 min
  const startMs = 1_800_000_000_000; // a whole minute
  const read = (nowMs: number) =>
    store.read(
      agentId,
      {
        terms: [hour],
        nowMs,
        entry: { atMs: nowMs, operation: 'write', target_integration: 'github', resource_scope: 'repo/a', decision: null, context: {} },
        reserve: true,
      },
      async () => [],
    );
  /** Both keys' lifetimes: `ms`, less what has passed since (a second at most on a busy machine). */
  const expectLifetimes = async (ms: number) => {
    const keys = await connection.keys(`${prefix}:history:${agentId}:*`);
    expect(keys).toHaveLength(2);
    for (const ttl of await Promise.all(keys.map((key) => connection.pttl(key)))) {
      expect(ttl).toBeGreaterThan(ms - 1_000);
      expect(ttl).toBeLessThanOrEqual(ms);
    }
  };
  // 100 ms into a step, which leaves the window an hour after it ends (3 659.9 s from now); a step more.
  await read(startMs + 100);
  await expectLifetimes(3_719_900);
  // Later in the same step: not renewed (renewing on every call would set a window and a step, 3 660 000).
  await read(startMs + 50_000);
  await expectLifetimes(3_719_900);
  // In the next step: renewed from that step's end.
  await read(startMs + 70_000);
  await expectLifetimes(3_710_000);
});

it("an evaluation's read is judged by its tenant's window first: a refusal reads, keeps and counts nothing; an admission counts once, rebuilt or not", async () => {
  const nowMs = 1_800_000_000_000 + 12_345;
  const entry: HistoryEntry = {
    atMs: nowMs,
    operation: 'write',
    target_integration: 'github',
    resource_scope: 'repo/a',
    decision: null,
    context: {},
  };
  for (const store of [memoryStore(), new RedisHistory(counters, prefix)]) {
    const agentId = randomUUID();
    const gate = { key: `tenant:${randomUUID()}:evaluate`, query: { limit: 2, windowMs: 60_000, nowMs } };
    const admit = () => store.admit(gate, agentId, { terms: [TERMS[0]!], nowMs, entry, reserve: true }, async () => []);
    // The first finds its term missing, rebuilds it from the (empty) record, and is counted once.
    expect(await admit()).toEqual({ verdict: judge({ previous: 0, current: 0 }, gate.query), readings: [{ before: 0, after: 1 }] });
    expect(await admit()).toEqual({ verdict: judge({ previous: 0, current: 1 }, gate.query), readings: [{ before: 1, after: 2 }] });
    const refused = await admit();
    expect(refused).toEqual({ verdict: judge({ previous: 0, current: 2 }, gate.query), readings: null });
    expect(refused.verdict.allowed).toBe(false);
    // Refused again from the same counts: the refusal was not counted, in the window or the term.
    expect(await admit()).toEqual(refused);
    expect(await store.read(agentId, { terms: [TERMS[0]!], nowMs, entry: null, reserve: false }, async () => [])).toEqual([
      { before: 2, after: 2 },
    ]);
  }
});
