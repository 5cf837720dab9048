/**
 * `npm run bench:builds -- <checkout>`: evaluate on this checkout's build against another
 * checkout's, in the same run, for a change on evaluate's path measured against the commit
 * before it (`git worktree add <dir> <commit>`, then `npm install && npm run build` there).
 * Each build is its own API process on its own fresh database, with Redis; their turns
 * alternate (ABBA, after a warm-up of each), so that the machine's drift falls on both alike.
 * For evaluate → allow and → approval_required (nothing to deliver), it prints each turn's
 * requests a second and the API's and PostgreSQL's CPU per call, and this build's rate over
 * the other's.
 *
 * Environment: BENCH_POSTGRES_URL, BENCH_REDIS_URL (default redis://127.0.0.1:6379),
 * BENCH_DURATION_S (default 10, per turn), BENCH_ROUNDS (default 2: turns per build and
 * scenario), BENCH_CONNECTIONS (default 64), BENCH_LOG_LEVEL.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { dropRedisPrefixes } from '../test/processes.js';
import { drive, duration, inTurn, ratioOf, rounds, type Scenario, WARM_UP_S } from './load.js';
import { build, cpuPerRequest, freshDatabase, markdownTable, root, startService, type Service } from './support.js';
import { seedTenant } from './tenant.js';

const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

interface Side {
  title: string;
  service: Service;
  scenarios: Scenario[];
  stop(): Promise<void>;
}

async function main() {
  const other = process.argv[2];
  if (other === undefined || !existsSync(resolve(other, 'apps/api/dist/main.js')))
    throw new Error('usage: npm run bench:builds -- <another checkout, built with npm run build>');
  build();
  const sides: Side[] = [];
  try {
    for (const [title, checkout] of [
      ['this checkout', root],
      [other, resolve(other)],
    ] as const) {
      sides.push(await startSide(title, checkout));
    }
    const rows: string[][] = [];
    const ratios: string[][] = [];
    for (const [index, scenario] of sides[0]!.scenarios.entries()) {
      const turns = new Map<Side, { rate: number; api: number; postgres: number }[]>(sides.map((side) => [side, []]));
      for (let round = 0; round < rounds; round += 1) {
        for (const side of inTurn(sides, round)) {
          const { row, cpu } = await cpuPerRequest({ api: side.service.pid }, duration, () =>
            drive(side.service.url, {}, side.scenarios[index]!),
          );
          turns.get(side)!.push({ rate: row['requests/s'], api: cpu.api!, postgres: cpu.postgres! });
        }
      }
      for (const side of sides) {
        const measured = turns.get(side)!;
        rows.push([
          scenario.title,
          side.title,
          measured.map((turn) => turn.rate).join(', '),
          measured.map((turn) => turn.api.toFixed(3)).join(', '),
          measured.map((turn) => turn.postgres.toFixed(3)).join(', '),
        ]);
      }
      const [ours, theirs] = sides.map((side) => turns.get(side)!.map((turn) => turn.rate));
      const ratio = ratioOf(ours!, theirs!);
      ratios.push([scenario.title, ratio.overall.toFixed(2), ratio.perRound]);
    }
    console.log(`\n${rounds} turns of ${duration} s per build and scenario, after ${WARM_UP_S} s of warm-up, in ABBA order.\n`);
    console.log(markdownTable(['scenario', 'build', 'requests/s', 'API CPU ms/call', 'PostgreSQL CPU ms/call'], rows));
    console.log(`\nThis checkout's rate over ${other}'s:\n`);
    console.log(markdownTable(['scenario', 'ratio', 'per round'], ratios));
  } finally {
    for (const side of sides) await side.stop();
  }
}

/** One build's API on a fresh database, with the bench tenant, warmed up on every scenario. */
async function startSide(title: string, checkout: string): Promise<Side> {
  const database = await freshDatabase();
  const prefix = `agov-bench-${randomUUID()}`;
  const service = await startService(database.url, { checkout, env: { REDIS_URL: redisUrl, QUEUE_PREFIX: prefix } });
  const seed = await seedTenant(service.url, null);
  const scenarios: Scenario[] = [
    { title: 'evaluate → allow', path: '/api/v1/evaluate', body: seed.allowAction, auth: seed.auth, expect: decided('allow') },
    {
      title: 'evaluate → approval_required',
      path: '/api/v1/evaluate',
      body: seed.approvalAction,
      auth: seed.auth,
      expect: decided('approval_required'),
    },
  ];
  for (const scenario of scenarios) await drive(service.url, {}, scenario, WARM_UP_S);
  return {
    title,
    service,
    scenarios,
    stop: async () => {
      await service.stop();
      await database.drop();
      await dropRedisPrefixes(redisUrl, [prefix]);
    },
  };
}

const decided = (decision: string) => (body: Record<string, unknown>) => body.decision === decision;

await main();
