/**
 * `npm run bench:rates`: evaluate → allow at moderate fixed rates, the load most deployments
 * see, where requests seldom overlap and each pays its own round trips (a saturating load,
 * `npm run bench`, shares them). The built API on a fresh database with the bench tenant
 * (`npm run bench`'s rules, no webhook endpoint, no worker), warmed up, then driven open loop
 * (load.ts, `driveAt`: each request timed from when it was due) at each rate in BENCH_RATES for
 * BENCH_DURATION_S. Prints each rate's p50 and p99, and the API's and PostgreSQL's CPU per
 * call read from `/proc`, as a Markdown table.
 *
 * Environment: BENCH_POSTGRES_URL, BENCH_LOG_LEVEL, BENCH_DURATION_S, BENCH_CONNECTIONS as
 * `npm run bench`; BENCH_RATES (requests a second, comma-separated; default 100,300,600).
 */
import { driveAt, duration, drive, WARM_UP_S } from './load.js';
import { cpuPerRequest, markdownTable, withFreshService } from './support.js';
import { seedTenant } from './tenant.js';

const rates = (process.env.BENCH_RATES ?? '100,300,600').split(',').map(Number);

await withFreshService(async (service) => {
  const seed = await seedTenant(service.url, null);
  const allow = {
    title: 'evaluate → allow',
    path: '/api/v1/evaluate',
    body: seed.allowAction,
    expect: (body: Record<string, unknown>) => body.decision === 'allow',
  };
  await drive(service.url, seed.auth, allow, WARM_UP_S);
  const rows: string[][] = [];
  for (const rate of rates) {
    const { row, cpu } = await cpuPerRequest({ api: service.pid }, duration, () => driveAt(service.url, seed.auth, allow, rate));
    rows.push([
      `${rate}/s`,
      String(row['requests/s']),
      String(row['p50 ms']),
      String(row['p99 ms']),
      cpu.api!.toFixed(2),
      cpu.postgres!.toFixed(2),
    ]);
  }
  console.log(`evaluate → allow, open loop, ${duration} s per rate:\n`);
  console.log(markdownTable(['rate', 'answered/s', 'p50 ms', 'p99 ms', 'API CPU ms/call', 'PostgreSQL CPU ms/call'], rows));
});
