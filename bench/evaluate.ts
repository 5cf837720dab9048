/**
 * `npm run bench`: the built API in its own process on a real PostgreSQL (synchronous commit
 * on), driven by autocannon with 64 connections. A tenant has 50 active rules per agent, and
 * the matching rule is the lowest, so every decision scans them all; it has a webhook
 * endpoint for `approval.requested` at a local receiver, so every approval is delivered.
 *
 * Evaluate runs twice: with no worker (effects pile up in the outbox), then with a worker
 * process consuming from Redis. After each run the bench reports the effects left undone
 * when the load stopped and how long the worker took to finish them. Every response must be
 * 2xx and a sample of bodies must carry the expected decision, or the bench fails.
 *
 * Environment: BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres),
 * BENCH_REDIS_URL (default redis://127.0.0.1:6379), BENCH_DURATION_S (default 10),
 * BENCH_CONNECTIONS (default 64), BENCH_LOG_LEVEL (default warn).
 *
 * BENCH_RATE_LIMITER=compare runs only evaluate → allow against two APIs side by side, one
 * whose rate-limit counters are in Redis and one that counts in its own memory, in alternating
 * short turns, and reports both and their ratio (see compareRateLimiter).
 */
import { randomUUID } from 'node:crypto';
import { dropRedisPrefixes, freePort } from '../test/processes.js';
import { startReceiver } from '../test/receiver.js';
import { connections, drive, duration, type Scenario, WARM_UP_S } from './load.js';
import { build, cpuPerRequest, freshDatabase, outboxWatch, startService, startWorker } from './support.js';
import { seedTenant } from './tenant.js';

const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Turns per side when comparing where the rate-limit counters live. */
const LIMITER_ROUNDS = 8;

async function main() {
  build();
  if (process.env.BENCH_RATE_LIMITER === 'compare') return compareRateLimiter();
  const database = await freshDatabase();
  const [{ synchronous_commit }] = (await database.admin`show synchronous_commit`) as unknown as [{ synchronous_commit: string }];
  // Development mode: the only difference that matters here is that webhooks may go to the
  // receiver on the local host.
  const env = { NODE_ENV: 'development', REDIS_URL: redisUrl, QUEUE_PREFIX: `agov-bench-${randomUUID()}` };
  const receiver = await startReceiver(200);
  const service = await startService(database.url, { env });
  let worker: Awaited<ReturnType<typeof startWorker>> | null = null;
  try {
    const base = service.url;
    const seed = await seedTenant(base, receiver.url);
    console.log(`\nPostgreSQL synchronous_commit=${synchronous_commit}; ${connections} connections, ${duration} s per scenario\n`);
    const evaluations: Scenario[] = [
      { title: 'evaluate → allow', path: '/api/v1/evaluate', body: seed.allowAction, expect: (b) => b.decision === 'allow' },
      {
        title: 'evaluate → approval_required',
        path: '/api/v1/evaluate',
        body: seed.approvalAction,
        expect: (b) => b.decision === 'approval_required',
      },
    ];
    const outbox = outboxWatch(database.url);
    // A cold process would make whichever run comes first look slow: warm up, then start
    // from an empty outbox.
    for (const scenario of evaluations) await drive(base, seed.auth, scenario, WARM_UP_S);
    await outbox.clear();
    const rows = [];

    for (const scenario of evaluations)
      rows.push({
        ...(await cpuPerRequest({ api: service.pid }, duration, () => drive(base, seed.auth, scenario))),
        worker: 'none',
        ...(await outbox.left()),
      });
    const piledUp = await outbox.pending();
    worker = await startWorker(database.url, env);
    const drained = await outbox.drain();
    console.log(
      `A worker started on a backlog of ${piledUp} effects finished them in ${drained.toFixed(1)} s (${Math.round(piledUp / drained)} effects/s).\n`,
    );

    for (const scenario of evaluations) {
      const before = receiver.received.length;
      const result = await cpuPerRequest({ api: service.pid, worker: worker.pid }, duration, () => drive(base, seed.auth, scenario));
      const backlog = await outbox.pending();
      const drainedIn = await outbox.drain();
      rows.push({
        ...result,
        worker: '1 process',
        'effects left': backlog,
        'drained in s': Number(drainedIn.toFixed(1)),
        'webhooks received': receiver.received.length - before,
      });
    }
    rows.push({
      ...(await drive(base, seed.auth, {
        title: 'dry run POST /policies/test',
        path: '/api/v1/policies/test',
        body: seed.allowAction,
        expect: (b) => b.effect === 'allow',
      })),
      worker: '1 process',
    });
    await outbox.close();
    console.table(rows);
  } finally {
    await worker?.stop();
    await service.stop();
    await receiver.close();
    await database.drop();
    await dropRedisPrefixes(redisUrl, [env.QUEUE_PREFIX]);
  }
}

/**
 * What the limiter's Redis round trip costs evaluate. Two APIs on one database, driven in
 * turns: one with its counters in Redis (one script call per request), one with REDIS_URL on
 * a port where nothing listens, so it counts in its own memory, as it does when Redis is down.
 * The limiter cannot be switched off, so the second is the baseline: all it keeps of the
 * limiter is a map update in memory. Neither API runs jobs (with REDIS_URL set, a worker
 * would), so the outbox only fills.
 */
async function compareRateLimiter() {
  const database = await freshDatabase();
  const prefix = `agov-bench-${randomUUID()}`;
  const sides = [
    { title: 'counters in Redis', redis: redisUrl },
    { title: 'counters in process memory', redis: `redis://127.0.0.1:${await freePort()}` },
  ];
  const services: Awaited<ReturnType<typeof startService>>[] = [];
  try {
    for (const side of sides)
      services.push(await startService(database.url, { env: { NODE_ENV: 'development', REDIS_URL: side.redis, QUEUE_PREFIX: prefix } }));
    // Seeded once, through the first service; the second finds it in the database.
    const seeded = await seedTenant(services[0]!.url, 'http://127.0.0.1:9/unused');
    const scenario: Scenario = {
      title: 'evaluate → allow',
      path: '/api/v1/evaluate',
      body: seeded.allowAction,
      expect: (b) => b.decision === 'allow',
    };
    for (const service of services) await drive(service.url, seeded.auth, scenario, WARM_UP_S);

    // Short turns in ABBA order, so that whatever else the machine does falls on both sides alike.
    const turnS = Math.max(2, Math.round(duration / LIMITER_ROUNDS));
    const rates: number[][] = [[], []];
    const p99s: number[][] = [[], []];
    for (let round = 0; round < LIMITER_ROUNDS; round += 1) {
      for (const side of round % 2 === 0 ? [0, 1] : [1, 0]) {
        const row = await drive(services[side]!.url, seeded.auth, scenario, turnS);
        rates[side]!.push(row['requests/s']);
        p99s[side]!.push(row['p99 ms']);
      }
    }
    const mean = (values: number[]) => Math.round(values.reduce((sum, value) => sum + value, 0) / values.length);
    console.log(`\nevaluate → allow, ${connections} connections, ${LIMITER_ROUNDS} turns of ${turnS} s per side, ABBA order\n`);
    console.table(
      sides.map((side, index) => ({
        'rate limiter': side.title,
        'requests/s (mean)': mean(rates[index]!),
        'requests/s (turns)': rates[index]!.join(' '),
        'p99 ms (worst turn)': Math.max(...p99s[index]!),
      })),
    );
    const ratios = rates[0]!.map((rate, round) => rate / rates[1]![round]!);
    console.log(
      `Redis / memory: ${(mean(rates[0]!) / mean(rates[1]!)).toFixed(3)} overall; per round ${ratios.map((ratio) => ratio.toFixed(2)).join(' ')}`,
    );
  } finally {
    for (const service of services) await service.stop();
    await database.drop();
    await dropRedisPrefixes(redisUrl, [prefix]);
  }
}

await main();
