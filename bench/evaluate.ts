/**
 * `npm run bench`: the built API in its own process on a real PostgreSQL (synchronous commit
 * on), driven by autocannon with 64 connections. A tenant has 50 active rules per agent, and
 * the matching rule is the lowest, so every decision scans them all; it has a webhook
 * endpoint for `approval.requested` at a local receiver, so every approval is delivered.
 *
 * Each evaluate scenario runs in turns: with no worker (effects pile up in the outbox), and
 * with a worker process consuming from Redis, alternating in ABBA order so that whatever else
 * the machine does falls on both sides alike. evaluate → allow takes its turns together with the
 * same call for an agent that also has a shadow rule that would deny it (the most a shadow rule
 * costs: its pass runs and a row is recorded on every call), for an agent whose matching rule
 * reads three history terms (one script call in Redis on every call, bench/tenant.ts), and for a
 * tenant that turned on grants for allowed actions (a signature and a row on every call); the
 * bench reports their ratios to it. After each turn a worker finishes what is left, timed, so no
 * turn inherits work from another; the bench reports the effects left when the load stopped, how long they took, and the ratio of the two sides' rates, overall and per
 * round. Every response must be 2xx and a sample of bodies must carry the expected decision,
 * or the bench fails.
 *
 * Approvals have a third side, the least a delivery can cost on the same cores: no worker, but a
 * process of its own (bench/bare-sender.ts) posting a delivered envelope to a second receiver as
 * many times a second as the worker delivered, with the service's own signing and transport and
 * no queue or database.
 *
 * Environment: BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres),
 * BENCH_REDIS_URL (default redis://127.0.0.1:6379), BENCH_DURATION_S (default 10, per turn),
 * BENCH_ROUNDS (default 2: turns per side and scenario), BENCH_CONNECTIONS (default 64),
 * BENCH_LOG_LEVEL (default warn).
 *
 * BENCH_RATE_LIMITER=compare runs only evaluate → allow and the dry run against two APIs side
 * by side, one whose rate-limit counters are in Redis and one that counts in its own memory, in
 * alternating short turns, and reports both and their ratio (see compareRateLimiter). BENCH_HISTORY=embedded
 * (or redis) runs only evaluate → allow with three history conditions against the plain allow,
 * in embedded mode (or on PostgreSQL and Redis with the worker; see compareHistory).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { dropRedisPrefixes, freePort } from '../test/processes.js';
import { startReceiver } from '../test/receiver.js';
import { alternate, connections, drive, duration, inTurn, mean, ratioOf, rounds, type Scenario, WARM_UP_S } from './load.js';
import { build, call, cpuPerRequest, root, freshDatabase, outboxWatch, startService, startWorker } from './support.js';
import { seedTenant } from './tenant.js';

const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
type Side = 'none' | 'worker' | 'bare';
const SIDE_NAMES: Record<Side, string> = { none: 'none', worker: '1 process', bare: 'bare sender' };

/** One turn under load: the rate, p99, CPU ms per request of each part, then what was left and how long it took. */
interface Turn {
  rate: number;
  p99: number;
  cpu: Record<string, number>;
  left: number;
  drainedS: number;
  received: number;
}
type Worker = Awaited<ReturnType<typeof startWorker>>;
const CPU_PARTS = ['api', 'worker', 'postgres', 'redis', 'bench'];
const COLUMNS = [
  'scenario',
  'worker',
  'requests/s',
  'p99 ms',
  ...CPU_PARTS.map((part) => `cpu ms/req ${part}`),
  'effects left',
  'drained in s',
  'webhooks received',
];

/** A side's turns as one row: each turn's rate, p99, left-over and drain time, and the mean CPU per request of each part. */
function summary(title: string, side: Side, turns: readonly Turn[]) {
  const each = (values: readonly (number | string)[]) => values.join(' – ');
  return {
    scenario: title,
    worker: SIDE_NAMES[side],
    'requests/s': each(turns.map((turn) => turn.rate)),
    'p99 ms': each(turns.map((turn) => turn.p99)),
    ...Object.fromEntries(
      CPU_PARTS.filter((part) => part in turns[0]!.cpu).map((part) => [
        `cpu ms/req ${part}`,
        Number(mean(turns.map((turn) => turn.cpu[part]!)).toFixed(3)),
      ]),
    ),
    'effects left': each(turns.map((turn) => turn.left)),
    'drained in s': each(turns.map((turn) => turn.drainedS.toFixed(1))),
    'webhooks received': turns.reduce((sum, turn) => sum + turn.received, 0),
  };
}

async function main() {
  build();
  if (process.env.BENCH_RATE_LIMITER === 'compare') return compareRateLimiter();
  if (process.env.BENCH_HISTORY === 'embedded' || process.env.BENCH_HISTORY === 'redis') return compareHistory(process.env.BENCH_HISTORY);
  const database = await freshDatabase();
  const [{ synchronous_commit }] = (await database.admin`show synchronous_commit`) as unknown as [{ synchronous_commit: string }];
  // Development mode: the only difference that matters here is that webhooks may go to the
  // receiver on the local host.
  const env = { NODE_ENV: 'development', REDIS_URL: redisUrl, QUEUE_PREFIX: `agov-bench-${randomUUID()}` };
  const receiver = await startReceiver(200);
  const bareReceiver = await startReceiver(200);
  const service = await startService(database.url, { env });
  // Started and stopped between turns (setWorker below).
  let worker = null as Worker | null;
  try {
    const base = service.url;
    const seed = await seedTenant(base, receiver.url);
    // A tenant like the first with grants on every allow: what signing one costs.
    const granting = await seedTenant(base, null);
    await call(base, '/api/v1/settings/grants', { method: 'PUT', headers: granting.headers, body: { issue_on_allow: true } });
    console.log(`\nPostgreSQL synchronous_commit=${synchronous_commit}; Node ${process.versions.node}; ${connections} connections\n`);
    // The worker's side comes before the bare side in the first round: it delivers the envelope the bare side posts.
    // Scenarios listed together take turns with one another as well as with their sides, so that their rates compare.
    const allow = allowScenario(seed.allowAction);
    const evaluations: { scenarios: readonly Scenario[]; sides: readonly Side[] }[] = [
      {
        scenarios: [
          allow,
          { ...allow, title: 'evaluate → allow, a shadow rule would deny', body: seed.shadowAction },
          { ...allow, title: 'evaluate → allow, three history conditions', body: seed.historyAction },
          {
            title: 'evaluate → allow with a grant',
            path: '/api/v1/evaluate',
            body: granting.allowAction,
            auth: granting.auth,
            expect: (b) => b.decision === 'allow' && typeof b.grant === 'string',
          },
        ],
        sides: ['none', 'worker'],
      },
      {
        scenarios: [
          {
            title: 'evaluate → approval_required',
            path: '/api/v1/evaluate',
            body: seed.approvalAction,
            expect: (b) => b.decision === 'approval_required',
          },
        ],
        sides: ['none', 'worker', 'bare'],
      },
    ];
    const outbox = outboxWatch(database.url);
    // A cold process would make whichever run comes first look slow: warm up, then start
    // from an empty outbox.
    for (const scenario of evaluations.flatMap((evaluation) => evaluation.scenarios)) await drive(base, seed.auth, scenario, WARM_UP_S);
    await outbox.clear();

    const setWorker = async (wanted: boolean) => {
      if (wanted && !worker) worker = await startWorker(database.url, env);
      if (!wanted && worker) {
        await worker.stop();
        worker = null;
      }
    };
    const rows = [];
    const ratios = [];
    for (const { scenarios, sides } of evaluations) {
      const turns = new Map(scenarios.map((scenario) => [scenario, { none: [], worker: [], bare: [] } as Record<Side, Turn[]>]));
      const order = sides.flatMap((side) => scenarios.map((scenario) => ({ scenario, side })));
      for (let round = 0; round < rounds; round += 1) {
        for (const { scenario, side } of inTurn(order, round)) {
          const ofScenario = turns.get(scenario)!;
          await setWorker(side === 'worker');
          const before = receiver.received.length;
          // As many posts a second as the worker delivered (its side precedes this one in the first round).
          const bare =
            side === 'bare'
              ? await startBareSender(bareReceiver.url, receiver.received.at(-1)!.body, mean(ofScenario.worker.map((turn) => turn.rate)))
              : null;
          // The bare sender stands where the worker would: its CPU is counted as the worker's.
          const deliverer = worker ?? bare;
          const children: Record<string, number> = { api: service.pid, ...(deliverer ? { worker: deliverer.pid } : {}) };
          const { row, cpu } = await cpuPerRequest(children, duration, () => drive(base, seed.auth, scenario)).finally(() => bare?.stop());
          const left = await outbox.pending();
          // Nothing is carried into the next turn: a worker finishes what is left, timed.
          await setWorker(true);
          const drainedS = await outbox.drain();
          if (side !== 'worker' && left > 0)
            console.log(
              `A worker started on a backlog of ${left} effects finished them in ${drainedS.toFixed(1)} s (${Math.round(left / drainedS)} effects/s).`,
            );
          ofScenario[side].push({
            rate: row['requests/s'],
            p99: row['p99 ms'],
            cpu,
            left,
            drainedS,
            received: receiver.received.length - before,
          });
        }
      }
      const rates = (scenario: Scenario, side: Side) => turns.get(scenario)![side].map((turn) => turn.rate);
      for (const scenario of scenarios) {
        for (const side of sides) rows.push(summary(scenario.title, side, turns.get(scenario)![side]));
        for (const side of sides.slice(1)) {
          const { overall, perRound } = ratioOf(rates(scenario, side), rates(scenario, 'none'));
          ratios.push(`${scenario.title}, ${SIDE_NAMES[side]}: ${overall.toFixed(2)} (per round ${perRound})`);
        }
      }
      for (const scenario of scenarios.slice(1)) {
        for (const side of sides) {
          const { overall, perRound } = ratioOf(rates(scenario, side), rates(scenarios[0]!, side));
          ratios.push(
            `${scenario.title} ÷ ${scenarios[0]!.title}, worker ${SIDE_NAMES[side]}: ${overall.toFixed(3)} (per round ${perRound})`,
          );
        }
      }
    }
    rows.push({
      ...(await drive(base, seed.auth, dryRunScenario(seed.allowAction))),
      worker: '1 process',
    });
    await outbox.close();
    console.log(`\n${rounds} turns of ${duration} s per scenario and side, in ABBA order; figures are the turns' range or mean.`);
    console.table(rows, COLUMNS);
    console.log(`Requests/s of each side ÷ none, and of each scenario ÷ the first it takes turns with:\n  ${ratios.join('\n  ')}`);
  } finally {
    await worker?.stop();
    await service.stop();
    await receiver.close();
    await bareReceiver.close();
    await database.drop();
    await dropRedisPrefixes(redisUrl, [env.QUEUE_PREFIX]);
  }
}

/**
 * Starts bench/bare-sender.ts posting `envelope` to `url` `rate` times a second; `stop` ends it
 * and throws if any post failed.
 */
async function startBareSender(url: string, envelope: string, rate: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/bare-sender.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH, BARE_URL: url, BARE_ENVELOPE: envelope, BARE_RATE: String(rate) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  if ((await lines.next()).value !== 'bare sender ready') throw new Error('the bare sender did not start');
  return {
    pid: child.pid as number,
    async stop() {
      child.kill('SIGTERM');
      const { sent, failed } = JSON.parse((await lines.next()).value as string) as { sent: number; failed: number };
      if (failed > 0) throw new Error(`${failed} of ${sent} bare posts failed`);
    },
  };
}

/**
 * What the limiter's calls to Redis cost evaluate and the dry run. Two APIs on one database,
 * driven in turns: one with its counters in Redis (one script call per batch of requests), one
 * with REDIS_URL on a port where nothing listens, so it counts in its own memory, as it does
 * when Redis is down. The limiter cannot be switched off, so the second is the baseline: all it
 * keeps of the limiter is a map update in memory. Neither API runs jobs (with REDIS_URL set, a
 * worker would), so the outbox only fills.
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
    for (const scenario of [allowScenario(seeded.allowAction), dryRunScenario(seeded.allowAction)]) {
      await alternate(
        scenario.title,
        sides.map((side, index) => ({
          title: side.title,
          base: services[index]!.url,
          auth: seeded.auth,
          scenario,
          processes: { api: services[index]!.pid },
        })),
      );
    }
  } finally {
    for (const service of services) await service.stop();
    await database.drop();
    await dropRedisPrefixes(redisUrl, [prefix]);
  }
}

/**
 * What three history conditions cost evaluate, alone: one service, the allow read through three
 * history terms and the plain allow in alternating turns. `embedded`: PGlite, counters in process
 * memory, effects in process, no Redis round trip. `redis`: PostgreSQL, counters in Redis (one
 * script call per evaluation beside the limiter's) and the worker attached, as the full bench's
 * worker side.
 */
async function compareHistory(mode: 'embedded' | 'redis') {
  const dataDir = mode === 'embedded' ? mkdtempSync(join(tmpdir(), 'agov-bench-history-')) : null;
  const database = mode === 'redis' ? await freshDatabase() : null;
  const env: Record<string, string> = dataDir
    ? { DATA_DIR: dataDir, MIGRATE_ON_START: 'true' }
    : { NODE_ENV: 'development', REDIS_URL: redisUrl, QUEUE_PREFIX: `agov-bench-${randomUUID()}` };
  const service = await startService(database?.url ?? '', { env });
  const worker = database ? await startWorker(database.url, env) : null;
  try {
    const seeded = await seedTenant(service.url, null);
    const processes = { api: service.pid, ...(worker ? { worker: worker.pid } : {}) };
    // The history side first: the ratio printed is the goal's, history ÷ plain.
    await alternate(mode === 'redis' ? 'PostgreSQL and Redis, with the worker' : 'embedded mode', [
      {
        title: 'evaluate → allow, three history conditions',
        base: service.url,
        auth: seeded.auth,
        scenario: allowScenario(seeded.historyAction),
        processes,
      },
      { title: 'evaluate → allow', base: service.url, auth: seeded.auth, scenario: allowScenario(seeded.allowAction), processes },
    ]);
  } finally {
    await worker?.stop();
    await service.stop();
    await database?.drop();
    if (env.QUEUE_PREFIX) await dropRedisPrefixes(redisUrl, [env.QUEUE_PREFIX]);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

/** evaluate asked about `body`, which must be allowed. */
const allowScenario = (body: Record<string, unknown>): Scenario => ({
  title: 'evaluate → allow',
  path: '/api/v1/evaluate',
  body,
  expect: (b) => b.decision === 'allow',
});

const dryRunScenario = (body: Record<string, unknown>): Scenario => ({
  title: 'dry run POST /policies/test',
  path: '/api/v1/policies/test',
  body,
  expect: (b) => b.effect === 'allow',
});

await main();
