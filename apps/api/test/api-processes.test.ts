import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { childPids, dropRedisPrefixes, freePort, runToExit, startProcess, type Started } from '../../../test/processes.js';
import { action, agentBody, policyBody } from './fixtures.js';
import { ownDatabase, PASSWORD } from './harness.js';
import { sample, scrape } from './scrape.js';

/*
 * API_PROCESSES=2: the built service as `npm start` runs it, a supervisor and two API
 * processes on one port, on a database nobody migrated before: its processes migrate it, one
 * after the other under the migrations' advisory lock. Each request goes on a
 * connection of its own, which the supervisor hands to the processes in turn, so whatever
 * the processes must share (caches' invalidations, rate-limit counters, metrics) is tested
 * across both.
 */
const SHARED_REDIS = 'redis://127.0.0.1:6379';
const EVALUATE_LIMIT = 6;
const prefix = `agov-test-${randomUUID()}`;
let databaseUrl: string;
let supervisor: Started;
let baseUrl: string;
let metricsPort: number;

async function startService(env: Record<string, string> = {}) {
  const port = await freePort();
  const started = await startProcess(
    process.execPath,
    ['apps/api/dist/main.js'],
    {
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      REDIS_URL: SHARED_REDIS,
      QUEUE_PREFIX: prefix,
      API_PROCESSES: '2',
      RATE_LIMIT_EVALUATE: String(EVALUATE_LIMIT),
      ...env,
    },
    /agent governance api ready/,
  );
  return { started, baseUrl: `http://127.0.0.1:${port}` };
}

interface Answer {
  status: number;
  body: { data?: Record<string, unknown> } & Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
}

/** One request on a connection of its own, closed after it. */
function call(url: string, credential: Record<string, string>, method: string, path: string, body?: unknown): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      `${url}${path}`,
      {
        method,
        agent: false,
        headers: { ...credential, connection: 'close', ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode!, body: text ? JSON.parse(text) : {}, headers: response.headers }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

/** The pids whose log says they completed a request. */
function servingPids(output: string): Set<number> {
  const pids = output
    .split('\n')
    .filter((line) => line.includes('"msg":"request completed"'))
    .map((line) => (JSON.parse(line) as { pid: number }).pid);
  return new Set(pids);
}

let admin: Record<string, string>;
let runtimeKey: Record<string, string>;

beforeAll(async () => {
  databaseUrl = await ownDatabase({ migrated: false });
  metricsPort = await freePort();
  ({ started: supervisor, baseUrl } = await startService({ METRICS_PORT: String(metricsPort) }));
}, 60_000);

afterAll(async () => {
  if (supervisor.child.exitCode === null) await supervisor.stop('SIGKILL');
  await dropRedisPrefixes(SHARED_REDIS, [prefix]);
});

describe('API_PROCESSES=2', () => {
  it('serves from two processes on one port, on the database they migrated', async () => {
    const processes = childPids(supervisor.child.pid!);
    expect(processes).toHaveLength(2);

    const signup = await call(baseUrl, {}, 'POST', '/api/v1/auth/signup', {
      organization_name: 'Clustered',
      name: 'Cl',
      email: `cl-${randomUUID()}@example.test`,
      password: PASSWORD,
    });
    expect(signup.status, JSON.stringify(signup.body)).toBe(201);
    admin = { cookie: String(signup.headers['set-cookie']).split(';')[0]!, 'x-requested-with': 'XMLHttpRequest' };
    runtimeKey = { authorization: `Bearer ${(signup.body.data!.api_key as { key: string }).key}` };
    for (let i = 0; i < 4; i += 1) expect((await call(baseUrl, runtimeKey, 'GET', '/api/v1/auth/me')).status).toBe(200);

    expect(servingPids(supervisor.output())).toEqual(new Set(processes));
  });

  it('refuses a revoked key in every process from the answer to its revocation on', async () => {
    const issued = await call(baseUrl, admin, 'POST', '/api/v1/api-keys', { name: 'revoked', scopes: ['agents:read'] });
    expect(issued.status).toBe(201);
    const key = { authorization: `Bearer ${issued.body.data!.key as string}` };
    // Both processes have it cached as valid.
    for (let i = 0; i < 2; i += 1) expect((await call(baseUrl, key, 'GET', '/api/v1/agents')).status).toBe(200);

    expect((await call(baseUrl, admin, 'DELETE', `/api/v1/api-keys/${issued.body.data!.id as string}`)).status).toBe(204);
    for (let i = 0; i < 4; i += 1) expect((await call(baseUrl, key, 'GET', '/api/v1/agents')).status).toBe(401);
  });

  it('counts a rate limit once across the processes, in Redis', async () => {
    const agent = await call(baseUrl, admin, 'POST', '/api/v1/agents', agentBody());
    expect(agent.status).toBe(201);
    // Effects to wait in the outbox (no worker runs): a webhook for each approval requested.
    const policy = await call(
      baseUrl,
      admin,
      'POST',
      '/api/v1/policies',
      policyBody(agent.body.data!.id as string, { policy_effect: 'approval_required' }),
    );
    expect(policy.status).toBe(201);
    const webhook = await call(baseUrl, admin, 'POST', '/api/v1/webhooks', {
      url: 'https://93.184.215.14/hook',
      events: ['approval.requested'],
    });
    expect(webhook.status).toBe(201);
    const statuses: number[] = [];
    for (let i = 0; i < EVALUATE_LIMIT + 2; i += 1) {
      statuses.push((await call(baseUrl, runtimeKey, 'POST', '/api/v1/evaluate', action(agent.body.data!.id as string))).status);
    }
    expect(statuses).toEqual([...Array(EVALUATE_LIMIT).fill(200), 429, 429]);
  });

  it("serves every process's metrics added up on the supervisor's METRICS_PORT", async () => {
    const { status, text } = await scrape(metricsPort);
    expect(status).toBe(200);
    // The evaluations of the test before, answered by both processes.
    expect(sample(text, 'agov_evaluate_duration_seconds_count{decision="approval_required"}')).toBe(EVALUATE_LIMIT);
    // Read from the database by each process: one value, not one per process.
    const sql = postgres(databaseUrl, { max: 1 });
    try {
      const [outbox] = await sql<[{ rows: number }]>`select count(*)::int as rows from outbox`;
      expect(sample(text, 'agov_outbox_backlog')).toBe(outbox!.rows);
      expect(outbox!.rows).toBeGreaterThan(0);
    } finally {
      await sql.end();
    }
  });

  it('stops every process on SIGTERM, exit code 0', async () => {
    const processes = childPids(supervisor.child.pid!);
    expect(await supervisor.stop('SIGTERM')).toBe(0);
    for (const pid of processes) expect(() => process.kill(pid, 0)).toThrow();
    expect(supervisor.output()).toContain('"by":"supervisor","msg":"shutting down"');
  });

  it('stops the other processes and exits 1 when one of them dies', async () => {
    const { started } = await startService();
    onTestFinished(() => started.stop('SIGKILL').then(() => undefined));
    const [dead, other] = childPids(started.child.pid!);
    const exited = new Promise<number | null>((resolve) => started.child.once('exit', resolve));
    process.kill(dead!, 'SIGKILL');
    expect(await exited).toBe(1);
    expect(() => process.kill(other!, 0)).toThrow();
    expect(started.output()).toMatch(new RegExp(`"apiProcessPid":${dead},"code":null,"signal":"SIGKILL","msg":"an API process ended`));
  });

  it('refuses more than one process on embedded PostgreSQL, before starting any', async () => {
    const { code, output } = await runToExit(process.execPath, ['apps/api/dist/main.js'], { API_PROCESSES: '2', REDIS_URL: SHARED_REDIS });
    expect(code).toBe(1);
    expect(output).toContain('Invalid configuration: API_PROCESSES above 1 needs DATABASE_URL');
    expect(output).not.toContain('database connected');
  });
});
