/**
 * `npm run bench:scale`: every read endpoint, and evaluate, at a long history. The built API
 * runs in its own process on a fresh database. One tenant, ten agents, each with a rule that
 * allows reads, one that asks for approval of refunds, and nothing for deletes (a default deny);
 * one real evaluation of each (the allow's outcome recorded, the approval left pending) serves as
 * a template, and BENCH_SCALE_TRACES copies of them are written by SQL, spread over the last 30
 * days, with all their events and, for the approvals, their requests (decided approved, denied
 * and expired in turn). Then each request below is sent one at a time, warmed up, and its p50
 * and p99 printed as a Markdown table, with the time and disk the seeding took. Before the
 * reads, the tallies' changes are folded in, the loaded tables vacuumed and a checkpoint writes
 * them out, as a history this old would have been. Then the traces' first page and page 20 000 are each driven under load
 * (load.ts), with the API's and PostgreSQL's CPU per request.
 *
 * Environment: BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres),
 * BENCH_LOG_LEVEL (default warn), BENCH_SCALE_TRACES (default 1 000 000),
 * BENCH_SCALE_SAMPLES (requests measured per row, default 50), BENCH_SCALE_DATABASE (a database
 * name: the history is seeded there once and kept, and later runs with the same
 * BENCH_SCALE_TRACES measure on it without seeding again; drop it by hand when done),
 * BENCH_DURATION_S and BENCH_CONNECTIONS (the load, load.ts), BENCH_SCALE_EMBEDDED=true (the
 * service on embedded PostgreSQL instead, as `npm start` runs it: the tenant is made through the
 * API, the service stopped while the bench copies the history into its data directory, then
 * started again on it; not with BENCH_SCALE_DATABASE).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '@agov/db';
import { foldTallies } from '@agov/domain';
import { sql } from 'drizzle-orm';
import { connections, drive, duration, WARM_UP_S } from './load.js';
import {
  build,
  call,
  copyTraces,
  cpuPerRequest,
  logIn,
  markdownTable,
  openBenchDatabase,
  type Service,
  signUp,
  spaced,
  startService,
  withFreshService,
} from './support.js';
import { agentBody } from './tenant.js';

const TRACES = Number(process.env.BENCH_SCALE_TRACES ?? 1_000_000);
const SAMPLES = Number(process.env.BENCH_SCALE_SAMPLES ?? 50);
const WARMUP = 5;
const AGENTS = 10;
/** The real evaluations each agent gets, which the copies are made of. */
const TEMPLATES = AGENTS * 3;
const DAY_MS = 24 * 60 * 60 * 1000;
const HISTORY_MS = 30 * DAY_MS;
const PAGE = 20;
const KEPT = process.env.BENCH_SCALE_DATABASE;
const EMBEDDED = process.env.BENCH_SCALE_EMBEDDED === 'true';

/** What the reads need of a seeded history; a kept database holds it for the next run. */
interface Seeded {
  traces: number;
  /** When the history was seeded: it ends a minute before. */
  now: number;
  email: string;
  runtimeKey: string;
  tenantId: string;
  agentIds: string[];
}

/** A seeded history, with the oldest trace and an approval for the detail rows. */
interface History extends Seeded {
  traceId: string;
  approvalId: string;
}

async function main() {
  if (EMBEDDED) return measureEmbedded();
  await withFreshService(async (service, database) => {
    const seeded = (KEPT ? await seededBefore(database) : null) ?? (await seedHistory(database, await seedTenant(service.url)));
    await measure(service, await historyOf(database, seeded));
  }, KEPT);
}

/**
 * Embedded PostgreSQL belongs to one process: the service makes the tenant, then stops while
 * this process opens its data directory to copy the history, then starts again on it.
 */
async function measureEmbedded() {
  if (KEPT) throw new Error('BENCH_SCALE_DATABASE keeps a server database: not with BENCH_SCALE_EMBEDDED');
  build();
  const dataDir = await mkdtemp(join(tmpdir(), 'agov-bench-scale-'));
  const embedded = { env: { DATA_DIR: dataDir } };
  try {
    const making = await startService('', embedded);
    const tenant = await seedTenant(making.url).finally(() => making.stop());
    const database = await openBenchDatabase({ dataDir });
    const history = await seedHistory(database, tenant)
      .then((seeded) => historyOf(database, seeded))
      .finally(() => database.close());
    const service = await startService('', embedded);
    await measure(service, history).finally(() => service.stop());
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Every read one at a time, then the traces' first page and deepest page under load. */
async function measure(service: Service, seeded: History) {
  const { now, agentIds } = seeded;
  const seed = {
    headers: await logIn(service.url, seeded.email),
    auth: { authorization: `Bearer ${seeded.runtimeKey}` },
  };
  const week = new Date(now - 7 * DAY_MS).toISOString();
  const month = new Date(now - HISTORY_MS).toISOString();
  const agent = agentIds[0]!;
  // Driven again under load below.
  const firstPage = { name: 'traces, first page', offset: 0 };
  const deepPage = { name: 'traces, page 20 000', offset: PAGE * 19_999 };
  const pathOf = (page: typeof firstPage) => `/api/v1/traces?limit=${PAGE}${page.offset ? `&offset=${page.offset}` : ''}`;
  const reads: [string, string][] = [
    [firstPage.name, pathOf(firstPage)],
    ['traces, page 50', `/api/v1/traces?limit=${PAGE}&offset=${PAGE * 49}`],
    ['traces, page 51', `/api/v1/traces?limit=${PAGE}&offset=${PAGE * 50}`],
    [deepPage.name, pathOf(deepPage)],
    ['traces of one agent', `/api/v1/traces?agent_id=${agent}&limit=${PAGE}`],
    ['traces denied', `/api/v1/traces?outcome=denied&limit=${PAGE}`],
    ['traces denied, page 10 000', `/api/v1/traces?outcome=denied&limit=${PAGE}&offset=${PAGE * 9_999}`],
    ['traces of the last 7 days (overview)', `/api/v1/traces?from=${week}&limit=100`],
    ['trace detail', `/api/v1/traces/${seeded.traceId}`],
    ['trace verify', `/api/v1/traces/${seeded.traceId}/verify`],
    ['agents', '/api/v1/agents'],
    ['agent detail with statistics', `/api/v1/agents/${agent}`],
    ['approvals, first page', `/api/v1/approvals?limit=${PAGE}`],
    ['approvals, page 10 000', `/api/v1/approvals?limit=${PAGE}&offset=${PAGE * 9_999}`],
    ['approvals approved (overview)', '/api/v1/approvals?status=approved&limit=100'],
    ['approvals count', '/api/v1/approvals/count'],
    ['approval detail', `/api/v1/approvals/${seeded.approvalId}`],
    ['shadow report, 30 days', `/api/v1/policies/shadow-report?from=${month}&to=${new Date(now).toISOString()}`],
    ['billing status', '/api/v1/billing/status'],
  ];
  const rows: string[][] = [];
  for (const [name, path] of reads) rows.push([`\`GET\` ${name}`, ...(await percentiles(() => get(service.url, path, seed.headers)))]);
  rows.push([
    '`POST /api/v1/evaluate` → allow',
    ...(await percentiles(() => call(service.url, '/api/v1/evaluate', { method: 'POST', headers: seed.auth, body: readAction(agent) }))),
  ]);
  const header = ['request', 'p50 ms', 'p99 ms'];
  console.log(markdownTable(header, rows));

  const loaded: string[][] = [];
  // The first page and the deepest again, under a load that saturates the service.
  for (const page of [firstPage, deepPage]) {
    // A history shorter than the page's offset (the templates besides the copies) leaves it short or empty.
    const expected = Math.max(0, Math.min(PAGE, seeded.traces + TEMPLATES - page.offset));
    const scenario = {
      title: page.name,
      path: pathOf(page),
      expect: (body: Record<string, unknown>) => (body.data as unknown[]).length === expected,
    };
    await drive(service.url, seed.headers, scenario, WARM_UP_S);
    const { row, cpu } = await cpuPerRequest({ api: service.pid }, duration, () => drive(service.url, seed.headers, scenario));
    loaded.push([
      `\`GET\` ${page.name}`,
      spaced(row['requests/s']),
      String(row['p50 ms']),
      String(row['p99 ms']),
      cpu.api!.toFixed(2),
      cpu.postgres!.toFixed(2),
    ]);
  }
  console.log(`\nUnder load (${connections} connections, ${duration} s each):`);
  console.log(markdownTable(['request', 'requests/s', 'p50 ms', 'p99 ms', 'API CPU ms/request', 'PostgreSQL CPU ms/request'], loaded));
}

/** Seeds the tenant's history, prints what that took, and records it in a kept database. */
async function seedHistory(database: Database, tenant: Awaited<ReturnType<typeof seedTenant>>): Promise<Seeded> {
  const started = performance.now();
  const now = Date.now();
  // The copies end a minute before now, so the templates stay the newest traces.
  await copyTraces(database, tenant.tenantId, {
    count: TRACES,
    startMs: now - HISTORY_MS,
    spacingMs: (HISTORY_MS - 60_000) / TRACES,
    approvals: true,
  });
  const seconds = (performance.now() - started) / 1000;
  // A history this old has had its tallies' changes folded in, been vacuumed and written out
  // before anyone reads it: without this, the first rows measured would share the machine with
  // the load's aftermath (embedded, they would wait for the service's first fold).
  await foldTallies({ database });
  await database.rows(sql`vacuum (analyze) traces, trace_events, approval_requests`);
  await database.rows(sql`checkpoint`);
  const settled = (performance.now() - started) / 1000 - seconds;
  const [stored] = await database.rows<{ size: string }>(sql`select pg_size_pretty(pg_database_size(current_database())) as size`);
  console.log(
    `\nSeeded ${spaced(TRACES)} traces with their events and approvals in ${seconds.toFixed(0)} s, folded, vacuumed and written out in ${settled.toFixed(0)} s; the database holds ${stored!.size}`,
  );
  const seeded: Seeded = { traces: TRACES, now, ...tenant };
  if (KEPT) {
    await database.rows(sql`create table bench_scale_history (seeded jsonb not null)`);
    await database.rows(sql`insert into bench_scale_history values (${JSON.stringify(seeded)}::jsonb)`);
  }
  return seeded;
}

/** The history a kept database was seeded with, or null when it has none yet. */
async function seededBefore(database: Database): Promise<Seeded | null> {
  const [history] = await database.rows<{ recorded: boolean }>(sql`select to_regclass('bench_scale_history') is not null as recorded`);
  if (!history!.recorded) {
    const [made] = await database.rows<{ tenants: number }>(sql`select count(*)::int as tenants from tenants`);
    if (made!.tenants > 0) throw new Error(`${KEPT} holds tenants but no finished seeding (an earlier run stopped): drop it and run again`);
    return null;
  }
  const [{ seeded }] = (await database.rows<{ seeded: Seeded }>(sql`select seeded from bench_scale_history`)) as [{ seeded: Seeded }];
  if (seeded.traces !== TRACES) throw new Error(`${KEPT} holds ${spaced(seeded.traces)} traces, not BENCH_SCALE_TRACES=${spaced(TRACES)}`);
  console.log(`\nMeasuring on ${KEPT}: ${spaced(seeded.traces)} traces seeded at ${new Date(seeded.now).toISOString()}`);
  return seeded;
}

/** The seeded history with the trace and the approval whose details are read. */
async function historyOf(database: Database, seeded: Seeded): Promise<History> {
  const [trace] = await database.rows<{ id: string }>(
    sql`select id from traces where tenant_id = ${seeded.tenantId} order by started_at limit 1`,
  );
  const [approval] = await database.rows<{ id: string }>(
    sql`select id from approval_requests where tenant_id = ${seeded.tenantId} limit 1`,
  );
  return { ...seeded, traceId: trace!.id, approvalId: approval!.id };
}

async function get(base: string, path: string, headers: Record<string, string>) {
  const response = await fetch(`${base}${path}`, { headers });
  if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
}

/** p50 and p99 in ms of SAMPLES sequential requests, after WARMUP unmeasured ones. */
async function percentiles(request: () => Promise<unknown>): Promise<[string, string]> {
  for (let i = 0; i < WARMUP; i += 1) await request();
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i += 1) {
    const started = performance.now();
    await request();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)]!.toFixed(1);
  return [at(0.5), at(0.99)];
}

const readAction = (agentId: string) => ({
  agent_id: agentId,
  operation: 'read',
  target_integration: 'crm',
  resource_scope: 'customers/c_1',
  data_classification: 'internal',
});

/** The tenant, its agents and rules, and the three templates per agent. */
async function seedTenant(base: string) {
  const { email, headers, runtimeKey } = await signUp(base);
  const auth = { authorization: `Bearer ${runtimeKey}` };
  const post = async (path: string, body: unknown) => (await call(base, path, { method: 'POST', headers, body })).body.data;
  const rule = (agentId: string, operation: string, policy_effect: string) => ({
    agent_id: agentId,
    policy_name: `${operation} ${policy_effect}`,
    target_integration: 'crm',
    operation,
    resource_scope: 'customers/*',
    data_classification: 'internal',
    policy_effect,
    rationale: 'Scale bench.',
    priority: 10,
    conditions: null,
    max_session_ttl: null,
    modified_by: 'bench',
    modified_at: '2026-11-01T09:00:00.000Z',
  });
  const agentIds: string[] = [];
  for (let k = 0; k < AGENTS; k += 1) {
    const agentId = (await post('/api/v1/agents', agentBody(`scale-${k}`))).id as string;
    agentIds.push(agentId);
    await post('/api/v1/policies', rule(agentId, 'read', 'allow'));
    await post('/api/v1/policies', rule(agentId, 'refund', 'approval_required'));
    const evaluate = async (body: unknown) =>
      (await call<{ trace_id: string }>(base, '/api/v1/evaluate', { method: 'POST', headers: auth, body })).body;
    const allowed = await evaluate(readAction(agentId));
    await call(base, `/api/v1/traces/${allowed.trace_id}/outcome`, { method: 'POST', headers: auth, body: { status: 'success' } });
    await evaluate({ ...readAction(agentId), operation: 'refund', context: { amount: 120 } });
    await evaluate({ ...readAction(agentId), operation: 'delete' });
  }
  const me = (await call(base, '/api/v1/auth/me', { method: 'GET', headers })).body.data as { tenant: { id: string } };
  return { email, runtimeKey, agentIds, tenantId: me.tenant.id };
}

await main();
