/**
 * What long polls on approval status cost the database while nothing changes: the built API
 * against a fresh database, 1 000 pending approvals, then the same quiet interval twice, once
 * with nobody waiting and once with a client waiting on each (`?wait=60`). Counted from
 * PostgreSQL's own statistics for the database: transactions committed and rows read, per
 * second.
 *
 * Environment: WAIT_CLIENTS (default 1000), WAIT_QUIET_S (default 20).
 */
import postgres from 'postgres';
import { Agent, setGlobalDispatcher } from 'undici';
import { freePort } from '../test/processes.js';
import { build, call, freshDatabase, startService } from './support.js';
import { seedTenant } from './tenant.js';

const clients = Number(process.env.WAIT_CLIENTS ?? 1000);
const quietS = Number(process.env.WAIT_QUIET_S ?? 20);
/** PostgreSQL's backends report their statistics at the latest 10 s after they go idle. */
const STATS_FLUSH_MS = 11_000;

// One connection per waiting client, as a thousand runtimes would have.
setGlobalDispatcher(new Agent({ connections: clients + 10, headersTimeout: 120_000, bodyTimeout: 120_000 }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main() {
  build();
  const database = await freshDatabase();
  const metricsPort = await freePort();
  const service = await startService(database.url, { env: { METRICS_PORT: String(metricsPort) } });
  /** How many polls the API holds now, from its own gauge. */
  const waits = async () => {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    return Number(/^agov_approval_status_waits (\d+)$/m.exec(text)?.[1]);
  };
  let running = true;
  const stop = async () => {
    if (running) await service.stop();
    running = false;
  };
  const stats = postgres(database.url, { max: 1, onnotice: () => {} });
  const counters = async () => {
    const [row] =
      await stats`select xact_commit::bigint as xacts, tup_returned::bigint as rows from pg_stat_database where datname = current_database()`;
    return { xacts: Number(row!.xacts), rows: Number(row!.rows) };
  };
  /** Work the database did per second during `quietS` of the caller's state, read after the backends report it. */
  const quietInterval = async () => {
    await sleep(STATS_FLUSH_MS);
    const before = await counters();
    await sleep(quietS * 1000);
    await sleep(STATS_FLUSH_MS);
    const after = await counters();
    // The two reads of the counters are transactions of their own.
    return { 'transactions/s': (after.xacts - before.xacts - 1) / quietS, 'rows read/s': (after.rows - before.rows) / quietS };
  };
  try {
    const tenant = await seedTenant(service.url, null);
    const ids: string[] = [];
    for (let i = 0; i < clients; i += 1) {
      const { body } = await call<{ approval_request_id: string }>(service.url, '/api/v1/evaluate', {
        method: 'POST',
        headers: tenant.auth,
        body: tenant.approvalAction,
      });
      ids.push(body.approval_request_id);
    }

    const idle = await quietInterval();
    const answers = ids.map((id) =>
      call<{ status: string }>(service.url, `/api/v1/approvals/${id}/status?wait=60`, { method: 'GET', headers: tenant.auth }),
    );
    // Every poll has made its one read and is waiting before the interval starts.
    while ((await waits()) < clients) await sleep(100);
    const waiting = await quietInterval();
    console.table([
      { clients: 0, ...idle },
      { clients, ...waiting },
    ]);
    // Stopping the service answers every poll still waiting: it must find them all pending.
    const stopping = performance.now();
    await stop();
    const statuses = await Promise.all(answers);
    const pending = statuses.filter((answer) => answer.body.status === 'pending').length;
    console.log(`shutdown answered ${pending} waiting polls pending and exited in ${Math.round(performance.now() - stopping)} ms`);
  } finally {
    await stats.end();
    await stop();
    await database.drop();
  }
}

await main();
