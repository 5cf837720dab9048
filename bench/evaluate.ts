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
import autocannon from 'autocannon';
import postgres from 'postgres';
import { dropRedisPrefixes, freePort } from '../test/processes.js';
import { startReceiver } from '../test/receiver.js';
import { build, call, freshDatabase, signUp, startService, startWorker } from './support.js';

const duration = Number(process.env.BENCH_DURATION_S ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Every this many responses, the body is checked. */
const SAMPLE_EVERY = 50;
const WARM_UP_S = 3;
/** Turns per side when comparing where the rate-limit counters live. */
const LIMITER_ROUNDS = 8;

type Scenario = { title: string; path: string; body: Record<string, unknown>; expect: (body: Record<string, unknown>) => boolean };

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
    const outbox = outboxWatch(postgres(database.url, { max: 1, onnotice: () => {} }));
    // A cold process would make whichever run comes first look slow: warm up, then start
    // from an empty outbox.
    for (const scenario of evaluations) await drive(base, seed.apiKey, scenario, WARM_UP_S);
    await outbox.clear();
    const rows = [];

    for (const scenario of evaluations)
      rows.push({ ...(await drive(base, seed.apiKey, scenario)), worker: 'none', ...(await outbox.left()) });
    const piledUp = await outbox.pending();
    worker = await startWorker(database.url, env);
    const drained = await outbox.drain();
    console.log(
      `A worker started on a backlog of ${piledUp} effects finished them in ${drained.toFixed(1)} s (${Math.round(piledUp / drained)} effects/s).\n`,
    );

    for (const scenario of evaluations) {
      const before = receiver.received.length;
      const result = await drive(base, seed.apiKey, scenario);
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
      ...(await drive(base, seed.apiKey, {
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
    for (const service of services) await drive(service.url, seeded.apiKey, scenario, WARM_UP_S);

    // Short turns in ABBA order, so that whatever else the machine does falls on both sides alike.
    const turnS = Math.max(2, Math.round(duration / LIMITER_ROUNDS));
    const rates: number[][] = [[], []];
    const p99s: number[][] = [[], []];
    for (let round = 0; round < LIMITER_ROUNDS; round += 1) {
      for (const side of round % 2 === 0 ? [0, 1] : [1, 0]) {
        const row = await drive(services[side]!.url, seeded.apiKey, scenario, turnS);
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

/** One scenario under load; throws on any non-2xx or a sampled body with the wrong decision. */
async function drive(base: string, apiKey: string, scenario: Scenario, seconds = duration) {
  let seen = 0;
  let wrong = 0;
  const result = await autocannon({
    url: `${base}${scenario.path}`,
    method: 'POST',
    connections,
    duration: seconds,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify(scenario.body),
    requests: [
      {
        onResponse: (status: number, body: string) => {
          seen += 1;
          if (seen % SAMPLE_EVERY === 0 && (status !== 200 || !scenario.expect(JSON.parse(body)))) wrong += 1;
        },
      },
    ],
  });
  if (result.non2xx > 0 || result.errors > 0 || wrong > 0) {
    throw new Error(`${scenario.title}: ${result.non2xx} non-2xx, ${result.errors} errors, ${wrong} sampled bodies with the wrong answer`);
  }
  return {
    scenario: scenario.title,
    'requests/s': Math.round(result.requests.average),
    'p50 ms': result.latency.p50,
    'p99 ms': result.latency.p99,
  };
}

/** Effects still to do: everything in the outbox but the approvals' expiries, a day away. */
function outboxWatch(sql: postgres.Sql) {
  const pending = async () => Number((await sql`select count(*)::int as n from outbox where kind <> 'approval_expiry'`)[0]!.n);
  return {
    pending,
    close: () => sql.end(),
    clear: () => sql`delete from outbox where kind <> 'approval_expiry'`,
    left: async () => ({ 'effects left': await pending() }),
    /** Seconds until nothing is left to do. */
    async drain(): Promise<number> {
      const started = performance.now();
      while ((await pending()) > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      return (performance.now() - started) / 1000;
    },
  };
}

/** A tenant with two agents, each with 49 rules that do not match above the one that does. */
async function seedTenant(base: string, webhookUrl: string) {
  const { headers, runtimeKey: apiKey } = await signUp(base);
  await call(base, '/api/v1/webhooks', { method: 'POST', headers, body: { url: webhookUrl, events: ['approval.requested'] } });
  const agentFor = async (name: string) =>
    (
      await call(base, '/api/v1/agents', {
        method: 'POST',
        headers,
        body: {
          name,
          description: 'bench agent',
          owner_name: 'Bench',
          owner_role: 'owner',
          team: 'bench',
          environment: 'prod',
          authority_model: 'self',
          identity_mode: 'service_identity',
          delegation_model: 'self',
          autonomy_tier: 'medium',
          authorized_integrations: [],
          credential_config: null,
          metadata: null,
          next_review_date: '2027-01-01',
          created_by: 'bench',
          modified_by: 'bench',
          modified_at: '2026-01-01T00:00:00.000Z',
        },
      })
    ).body.data.id as string;
  const rule = (agentId: string, index: number, effect: string, integration: string) => ({
    agent_id: agentId,
    policy_name: `rule ${index}`,
    target_integration: integration,
    operation: 'write',
    resource_scope: 'repo/*',
    data_classification: 'internal',
    policy_effect: effect,
    rationale: `Benchmark rule number ${index}.`,
    priority: index,
    conditions: null,
    max_session_ttl: null,
    modified_by: 'bench',
    modified_at: '2026-01-01T00:00:00.000Z',
  });
  const allowAgent = await agentFor('allow-bot');
  const approvalAgent = await agentFor('approval-bot');
  for (const [agentId, effect] of [
    [allowAgent, 'allow'],
    [approvalAgent, 'approval_required'],
  ] as const) {
    await call(base, '/api/v1/policies', { method: 'POST', headers, body: rule(agentId, 0, effect, 'github') });
    for (let index = 1; index < 50; index += 1) {
      await call(base, '/api/v1/policies', { method: 'POST', headers, body: rule(agentId, index, 'deny', `other-${index}`) });
    }
  }
  const actionOf = (agentId: string) => ({
    agent_id: agentId,
    operation: 'write',
    target_integration: 'github',
    resource_scope: 'repo/app',
    data_classification: 'internal',
  });
  return { apiKey, allowAction: actionOf(allowAgent), approvalAction: { ...actionOf(approvalAgent), context: { ticket: 'BENCH-1' } } };
}

await main();
