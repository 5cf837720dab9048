import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import postgres from 'postgres';
import { openDatabase } from '@agov/db';
import { startCluster, type Cluster } from '../../../test/postgres-cluster.js';
import { dropRedisPrefixes, FAST_DISPATCH_ENV, startWorker, type Started } from '../../../test/processes.js';
import { eventually, startReceiver } from '../../../test/receiver.js';
import { client } from './client.js';
import { action, createAgent, createPolicy } from './fixtures.js';
import { createTestApp, request, signupTenant, type Tenant, type TestApp } from './harness.js';

/*
 * The service on PostgreSQL clusters of the test's own, stopped and failed over under a
 * steady load of approval_required evaluations (25 a second), with effects
 * dispatched in this process. Checked: what every request answered, how soon the service
 * recovered, what it logged, and that nothing committed was lost.
 */
const CONNECT_TIMEOUT_MS = 2_000;
const OUTAGES = 10;

interface Answer {
  startedAt: number;
  endedAt: number;
  status: number;
  retryAfter: string | undefined;
  body: { error?: string; trace_id?: string; approval_request_id?: string };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function migratedDatabase(cluster: Cluster): Promise<void> {
  const admin = postgres(cluster.url(), { max: 1, onnotice: () => {} });
  await admin.unsafe('create database agov');
  await admin.end();
  const database = await openDatabase({ databaseUrl: cluster.url('agov'), databasePoolSize: 2, dataDir: '' });
  await database.migrate();
  await database.close();
}

/** What the API and any worker of a test run with. */
const serviceEnv = (databaseUrl: string) => ({
  NODE_ENV: 'development',
  DATABASE_URL: databaseUrl,
  DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
  MIGRATE_ON_START: 'false',
  ...FAST_DISPATCH_ENV,
  WEBHOOK_TIMEOUT_MS: '2000',
  // A worker that died mid-job (here: its database went away) leaves its effect leased this long.
  OUTBOX_LEASE_MS: '2000',
});

/**
 * The service on `databaseUrl` (dispatching effects itself, unless `env` gives it Redis), a
 * tenant whose evaluations all wait for approval, and a receiver of their webhooks.
 */
async function serviceOn(databaseUrl: string, env: Record<string, string> = {}) {
  const hook = await startReceiver(200);
  const t = await createTestApp({ jobs: true, env: { ...serviceEnv(databaseUrl), ...env } });
  const api = client(t.app);
  const tenant = await signupTenant(t.app);
  const created = await api.post(tenant.admin, '/api/v1/webhooks', { url: hook.url, events: ['approval.requested'] });
  expect(created.statusCode, created.body).toBe(201);
  const agent = await createAgent(t.app, tenant.admin);
  await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'approval_required' });
  return { t, api, hook, tenant, agentId: agent.id };
}

/**
 * Evaluations sent at a steady rate until stopped, each without waiting for the others, as
 * many agents would: one held up does not hold up the next. Every answer is kept.
 */
function steadyLoad(t: TestApp, tenant: Tenant, agentId: string, everyMs = 40) {
  const answers: Answer[] = [];
  const pending = new Set<Promise<void>>();
  const send = async () => {
    const startedAt = Date.now();
    const response = await request(t.app, tenant.runtimeKey, { method: 'POST', url: '/api/v1/evaluate', payload: action(agentId) });
    answers.push({
      startedAt,
      endedAt: Date.now(),
      status: response.statusCode,
      retryAfter: response.headers['retry-after'] as string | undefined,
      body: response.json(),
    });
  };
  const timer = setInterval(() => {
    const sending = send();
    pending.add(sending);
    void sending.finally(() => pending.delete(sending));
  }, everyMs);
  const stop = async () => {
    clearInterval(timer);
    await Promise.all(pending);
  };
  // A test that fails midway stops its load too, before the service closes under it.
  onTestFinished(stop);
  return { answers, stop };
}

/** The first evaluation started at or after `since` that succeeded; one that never comes fails with what was answered instead. */
async function firstSuccessSince(answers: Answer[], since: number): Promise<Answer> {
  const first = () => answers.find((answer) => answer.startedAt >= since && answer.status === 200);
  for (let waited = 0; first() === undefined && waited < 30_000; waited += 10) await sleep(10);
  const found = first();
  if (found) return found;
  const seen = answers.filter((answer) => answer.startedAt >= since).map((answer) => `${answer.status} ${answer.body.error ?? ''}`);
  throw new Error(`no evaluation succeeded within 30 s; answered since: ${seen.join(', ')}`);
}

/** Every evaluation answered 200 has its trace, with a chain that verifies, and its approval's webhook arrived. */
async function expectNothingLost(service: Awaited<ReturnType<typeof serviceOn>>, answers: Answer[]) {
  const accepted = answers.filter((answer) => answer.status === 200).map((answer) => answer.body);
  expect(accepted.length).toBeGreaterThan(0);
  for (const { trace_id: traceId } of accepted) {
    const verified = await service.api.get(service.tenant.admin, `/api/v1/traces/${traceId}/verify`);
    expect(verified.statusCode, verified.body).toBe(200);
    expect(verified.json()).toMatchObject({ trace_id: traceId, valid: true });
  }
  const approvals = new Set(accepted.map((body) => body.approval_request_id));
  const delivered = async () =>
    new Set(service.hook.envelopes().map((envelope) => (envelope.data.approval as { id: string }).id)).size >= approvals.size;
  for (let waited = 0; !(await delivered()) && waited < 30_000; waited += 100) await sleep(100);
  const arrived = new Set(service.hook.envelopes().map((envelope) => (envelope.data.approval as { id: string }).id));
  expect([...approvals].filter((id) => !arrived.has(id!))).toEqual([]);
}

const logged = (t: TestApp, message: string) =>
  t.logs.map((line) => JSON.parse(line) as { msg: string; time: number; server?: string }).filter((entry) => entry.msg === message);

const LOST = 'database unreachable; requests that need it answer 503 until it is back';
const REGAINED = 'database reachable again';

describe('PostgreSQL stopped and started again, ten times under load', () => {
  let cluster: Cluster;
  let service: Awaited<ReturnType<typeof serviceOn>>;
  beforeAll(async () => {
    cluster = await startCluster();
    await migratedDatabase(cluster);
    service = await serviceOn(cluster.url('agov'));
  }, 120_000);
  afterAll(async () => {
    await service?.t.close();
    await service?.hook.close();
    await cluster?.destroy();
  });

  it('answers 503 with Retry-After while it is away, is back within a second each time, and loses nothing', async () => {
    const { t, tenant, agentId } = service;
    const load = steadyLoad(t, tenant, agentId);
    const recoveries: number[] = [];
    const health: unknown[] = [];
    const outages: { stoppedAt: number; backAt: number }[] = [];
    for (let outage = 0; outage < OUTAGES; outage += 1) {
      await sleep(300);
      const stoppedAt = Date.now();
      await cluster.stop();
      await sleep(200);
      health.push((await t.app.inject({ method: 'GET', url: '/health' })).json());
      await sleep(500);
      await cluster.start();
      const backAt = Date.now();
      outages.push({ stoppedAt, backAt });
      recoveries.push((await firstSuccessSince(load.answers, backAt)).endedAt - backAt);
      // The end of an outage is told by the next probe, which a starved machine may delay past
      // the next stop: each outage here starts once the service has told the end of every
      // outage it told.
      await eventually(
        async () => logged(t, LOST).length > outage && logged(t, REGAINED).length === logged(t, LOST).length,
        15_000,
        `the end of outage ${outage + 1} told (told so far: ${logged(t, LOST).length} lost, ${logged(t, REGAINED).length} regained)`,
      );
    }
    await load.stop();
    const longest = Math.max(...load.answers.map((answer) => answer.endedAt - answer.startedAt));
    console.info(`recovery after each of ${OUTAGES} outages, ms: ${recoveries.join(', ')}; longest answer ${longest} ms`);

    const statuses = new Set(load.answers.map((answer) => answer.status));
    expect([...statuses].sort()).toEqual([200, 503]);
    for (const refused of load.answers.filter((answer) => answer.status === 503)) {
      expect(refused.body).toMatchObject({ error: 'service_unavailable', message: 'The database is unavailable; try again shortly' });
      expect(refused.retryAfter).toBe('1');
    }
    // No request is held to the request time limit: each is answered within about one connection
    // attempt (a busy machine may add a little to the 2.2-2.5 s seen).
    expect(longest).toBeLessThan(CONNECT_TIMEOUT_MS + 2_000);
    expect(Math.max(...recoveries)).toBeLessThan(1_000);
    expect(health).toEqual(Array(OUTAGES).fill({ status: 'degraded', degraded: ['database'] }));
    // The service learns that the database is back from its probe, a moment after requests succeed again.
    await expect.poll(async () => (await t.app.inject({ method: 'GET', url: '/health' })).json()).toEqual({ status: 'ok' });
    // Each outage is told once as it starts, and every outage told is told to end. On a starved
    // machine a probe after a request that failed late (its connection attempt timed out) may
    // miss its deadline while the database is up, and tell an outage of its own: never inside
    // one of these.
    const lost = logged(t, LOST);
    for (const { stoppedAt, backAt } of outages) {
      expect(lost.filter((entry) => entry.time >= stoppedAt && entry.time <= backAt)).toHaveLength(1);
    }
    expect(logged(t, REGAINED)).toHaveLength(lost.length);
    expect(logged(t, 'request failed')).toEqual([]);

    await expectNothingLost(service, load.answers);
  }, 180_000);
});

describe('a failover to a promoted standby under load', () => {
  let primary: Cluster;
  let standby: Cluster;
  let service: Awaited<ReturnType<typeof serviceOn>>;
  beforeAll(async () => {
    primary = await startCluster();
    await migratedDatabase(primary);
    standby = await primary.standby();
    const hosts = `127.0.0.1:${primary.port},127.0.0.1:${standby.port}`;
    service = await serviceOn(`postgres://postgres@${hosts}/agov?target_session_attrs=read-write`);
  }, 120_000);
  afterAll(async () => {
    await service?.t.close();
    await service?.hook.close();
    await standby?.destroy();
    await primary?.destroy();
  });

  it('follows the new primary within 5 s, says which server it is on, and loses nothing committed', async () => {
    const { t, tenant, agentId } = service;
    expect(logged(t, 'database connected').map((entry) => entry.server)).toEqual([`127.0.0.1:${primary.port}`]);
    const load = steadyLoad(t, tenant, agentId);
    await sleep(1_000);
    await primary.stop();
    await standby.promote();
    const promotedAt = Date.now();
    const followedMs = (await firstSuccessSince(load.answers, promotedAt)).endedAt - promotedAt;
    await sleep(1_000);
    await load.stop();
    console.info(`first success ${followedMs} ms after the standby's promotion`);

    expect(followedMs).toBeLessThan(5_000);
    expect(new Set(load.answers.map((answer) => answer.status))).toEqual(new Set([200, 503]));
    // Reached again after an outage, or found moved when the promotion was quicker than the probe;
    // on a busy machine a probe late past its deadline may tell a second, short outage. Each names the new primary.
    const followed = [...logged(t, REGAINED), ...logged(t, 'database server changed')];
    expect(followed.length).toBeGreaterThan(0);
    expect(new Set(followed.map((entry) => entry.server))).toEqual(new Set([`127.0.0.1:${standby.port}`]));
    await expectNothingLost(service, load.answers);
  }, 180_000);
});

describe('a worker process on Redis through outages', () => {
  const prefix = `agov-test-${randomUUID()}`;
  let cluster: Cluster;
  let service: Awaited<ReturnType<typeof serviceOn>>;
  let worker: Started;
  beforeAll(async () => {
    cluster = await startCluster();
    await migratedDatabase(cluster);
    const queue = { REDIS_URL: 'redis://127.0.0.1:6379', QUEUE_PREFIX: prefix };
    service = await serviceOn(cluster.url('agov'), queue);
    worker = await startWorker({ ...serviceEnv(cluster.url('agov')), ...queue });
  }, 120_000);
  afterAll(async () => {
    await worker?.stop('SIGKILL');
    await service?.t.close();
    await service?.hook.close();
    await cluster?.destroy();
    await dropRedisPrefixes('redis://127.0.0.1:6379', [prefix]);
  });

  it('keeps running, says when the database goes and comes back, and delivers every webhook afterwards', async () => {
    const { t, tenant, agentId } = service;
    const load = steadyLoad(t, tenant, agentId);
    for (let outage = 0; outage < 3; outage += 1) {
      await sleep(500);
      await cluster.stop();
      await sleep(1_000);
      await cluster.start();
    }
    await sleep(500);
    await load.stop();

    expect(worker.child.exitCode).toBeNull();
    await expectNothingLost(service, load.answers);
    const said = worker
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    const lost = said.filter((msg) => msg === LOST);
    expect(lost.length).toBeGreaterThan(0);
    expect(said.filter((msg) => msg === REGAINED)).toHaveLength(lost.length);
    expect(said.filter((msg) => msg.startsWith('job failed') || msg.startsWith('outbox relay: cannot'))).toEqual([]);
  }, 180_000);
});
