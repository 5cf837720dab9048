/**
 * `npm run bench:builds -- <checkout>`: evaluate on this checkout's build against another
 * checkout's, in the same run, for a change on evaluate's path measured against the commit
 * before it (`git worktree add <dir> <commit>`, then `npm install && npm run build` there).
 * Each build is its own API process on its own fresh database, with Redis and no worker; for
 * evaluate → allow and → approval_required (nothing to deliver), the two take short turns
 * (`alternate`: ABBA, after a warm-up of each) so that the machine's drift falls on both alike,
 * and the bench prints each build's rates and CPU per call, and this build's rate over the other's.
 *
 * Environment: BENCH_POSTGRES_URL, BENCH_REDIS_URL (default redis://127.0.0.1:6379),
 * BENCH_DURATION_S (default 10: split into the turns of each build and scenario),
 * BENCH_CONNECTIONS (default 64), BENCH_LOG_LEVEL.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { dropRedisPrefixes } from '../test/processes.js';
import { alternate, type Scenario } from './load.js';
import { build, freshDatabase, root, startService, type Service } from './support.js';
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
    for (const [index, scenario] of sides[0]!.scenarios.entries()) {
      await alternate(
        scenario.title,
        sides.map((side) => ({
          title: side.title,
          base: side.service.url,
          auth: {},
          scenario: side.scenarios[index]!,
          processes: { api: side.service.pid },
        })),
      );
    }
  } finally {
    for (const side of sides) await side.stop();
  }
}

/** One build's API on a fresh database, with the bench tenant. */
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
