import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import postgres from 'postgres';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { loadConfig, type Config } from '@agov/config';
import { announceInvalidations, type Clock, type Invalidation } from '@agov/domain';
import type { Database, Tx } from '@agov/db';
import { createLogger, createRuntime, type Runtime } from '@agov/runtime';
import { buildApp } from '../src/app.js';
import { TEST_ENV } from '../../../test/processes.js';
import { checkInjectedResponses } from './contract/violations.js';

export interface TestApp {
  app: FastifyInstance;
  runtime: Runtime;
  /** Every log line the app wrote, for tests that look for leaked secrets. */
  logs: string[];
  close(): Promise<void>;
}

/**
 * Real time that a test can move forward (expiry), or stop at one instant so that concurrent
 * calls share a timestamp (export paging); `resume` lets it run again from the offset.
 */
export class TestClock implements Clock {
  private offsetMs = 0;
  private stoppedAt: Date | null = null;
  now() {
    return new Date(this.stoppedAt?.getTime() ?? Date.now() + this.offsetMs);
  }
  advance(ms: number) {
    this.offsetMs += ms;
  }
  stop() {
    this.stoppedAt = this.now();
    return this.stoppedAt;
  }
  resume() {
    this.stoppedAt = null;
  }
  /** Moves a stopped clock forward by exactly `ms`; it stays stopped (and runs on from there when resumed). */
  step(ms: number) {
    if (!this.stoppedAt) throw new Error('step() moves a stopped clock; stop() it first');
    this.offsetMs += ms;
    this.stoppedAt = new Date(this.stoppedAt.getTime() + ms);
  }
}

export interface TestAppOptions {
  env?: Record<string, string>;
  clock?: Clock;
  /** Dispatch effects in this process, as the API does without Redis (use with `ownDatabase`). */
  jobs?: boolean;
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const config: Config = loadConfig({
    // As deployed: tests that need development's features (the bypass, plain-http local webhooks) say so.
    NODE_ENV: 'production',
    DATABASE_URL: inject('databaseUrl'),
    MIGRATE_ON_START: 'false',
    LOG_LEVEL: 'info',
    ...TEST_ENV,
    ...options.env,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(chunk.toString());
      done();
    },
  });
  const logger = createLogger(config, sink);
  const runtime = await createRuntime(config, { logger, ...(options.clock ? { clock: options.clock } : {}) });
  const app = await buildApp(runtime, logger);
  await app.ready();
  checkInjectedResponses(app);
  if (options.jobs) await runtime.startJobs('api');
  return {
    app,
    runtime,
    logs,
    async close() {
      await app.close();
      await runtime.close();
    },
  };
}

export interface UseTestAppOptions extends TestAppOptions {
  /** A database of the app's own (`ownDatabase`), for apps whose jobs or triggers must not reach other files. */
  ownDatabase?: boolean;
}

/**
 * The app of a test file, or of the describe block it is called in: created before the
 * block's tests and closed after them (after the block's later `afterAll` hooks, which run
 * in reverse). Its fields are read when a test runs:
 *
 *     const t = useTestApp({ clock, env: { … } });
 *     it('…', async () => { await signupTenant(t.app); });
 *
 * Options that need something started first (a fake server's URL, a database) may be given
 * as a function, called in the app's `beforeAll`, after the hooks registered before it.
 */
export function useTestApp(options: UseTestAppOptions | (() => UseTestAppOptions | Promise<UseTestAppOptions>) = {}): TestApp {
  let current: TestApp | undefined;
  beforeAll(async () => {
    const { ownDatabase: own, ...given } = typeof options === 'function' ? await options() : options;
    current = await createTestApp(own ? { ...given, env: { DATABASE_URL: await ownDatabase(), ...given.env } } : given);
  });
  let closed: Promise<void> | undefined;
  const close = () => (closed ??= started().close());
  afterAll(() => (current ? close() : undefined));
  const started = () => {
    if (!current) throw new Error('useTestApp: the app exists only while the tests it was set up for run');
    return current;
  };
  return {
    get app() {
      return started().app;
    },
    get runtime() {
      return started().runtime;
    },
    get logs() {
      return started().logs;
    },
    close,
  };
}

let copies = 0;

/**
 * A database of the caller's own, migrated, for tests whose background jobs act on every
 * tenant (dispatch, expiry): in the shared database they would take other files' effects.
 * With `migrated: false`, an empty one, for a test of what migrates it. Dropped with the others
 * at the end of the run.
 */
export async function ownDatabase(options: { migrated: boolean } = { migrated: true }): Promise<string> {
  const server = inject('serverUrl');
  copies += 1;
  const name = `${inject('databaseUrl').split('/').pop()}_own_${process.pid}_${copies}`;
  const admin = postgres(server, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database ${name}${options.migrated ? ` template ${inject('templateDatabase')}` : ''}`);
  } finally {
    await admin.end();
  }
  return Object.assign(new URL(server), { pathname: `/${name}` }).toString();
}

/** For suites that dispatch effects: each database their own, on the PostgreSQL server and embedded. */
export const DISPATCH_DATABASES = {
  postgres: async () => ({ DATABASE_URL: await ownDatabase() }),
  embedded: async () => ({ DATABASE_URL: '', DATA_DIR: mkdtempSync(join(tmpdir(), 'agov-dispatch-')), MIGRATE_ON_START: 'true' }),
};

/** How a test authenticates: an API key, a session cookie, or nothing. */
export type Credential = { apiKey: string } | { cookie: string } | null;

export function request(app: FastifyInstance, credential: Credential, options: InjectOptions): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { ...(options.headers as Record<string, string> | undefined) };
  if (credential && 'apiKey' in credential) headers.authorization = `Bearer ${credential.apiKey}`;
  if (credential && 'cookie' in credential) {
    headers.cookie = credential.cookie;
    headers['x-requested-with'] ??= 'XMLHttpRequest';
  }
  return app.inject({ ...options, headers });
}

let counter = 0;
export function uniqueEmail(label = 'user') {
  counter += 1;
  return `${label}.${Date.now()}.${process.pid}.${counter}@example.test`;
}

export const PASSWORD = 'correct horse battery staple';

export interface Tenant {
  tenantId: string;
  userId: string;
  email: string;
  /** The admin's session. */
  admin: { cookie: string };
  /** The agent-runtime key created at signup. */
  runtimeKey: { apiKey: string };
}

export async function signupTenant(app: FastifyInstance, organization = 'Acme'): Promise<Tenant> {
  const email = uniqueEmail('admin');
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/signup',
    payload: { organization_name: organization, name: 'Ada Admin', email, password: PASSWORD },
  });
  expect(response.statusCode, response.body).toBe(201);
  const { data } = response.json();
  return {
    tenantId: data.tenant.id,
    userId: data.user.id,
    email,
    admin: { cookie: sessionCookie(response) },
    runtimeKey: { apiKey: data.api_key.key },
  };
}

export function sessionCookie(response: LightMyRequestResponse): string {
  const cookie = response.cookies.find((c) => c.name === 'agov_session');
  if (!cookie) throw new Error('response set no session cookie');
  return `agov_session=${cookie.value}`;
}

/** An API key of the tenant with exactly these scopes. */
export async function keyWithScopes(
  app: FastifyInstance,
  tenant: Tenant,
  scopes: string[],
): Promise<{ apiKey: string; id: string; name: string; prefix: string }> {
  const response = await request(app, tenant.admin, {
    method: 'POST',
    url: '/api/v1/api-keys',
    payload: { name: `key ${scopes.join(' ')}`, scopes },
  });
  expect(response.statusCode, response.body).toBe(201);
  const { data } = response.json();
  return { apiKey: data.key, id: data.id, name: data.name, prefix: data.key_prefix };
}

/** A session of a new user with this role in the tenant. */
export async function sessionWithRole(
  app: FastifyInstance,
  tenant: Tenant,
  role: 'admin' | 'reviewer' | 'viewer',
): Promise<{ cookie: string; name: string; email: string }> {
  const email = uniqueEmail(role);
  const name = `${role} user`;
  const created = await request(app, tenant.admin, {
    method: 'POST',
    url: '/api/v1/users',
    payload: { name, email, password: PASSWORD, role },
  });
  expect(created.statusCode, created.body).toBe(201);
  const login = await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email, password: PASSWORD } });
  expect(login.statusCode, login.body).toBe(200);
  return { cookie: sessionCookie(login), name, email };
}

/**
 * Commits `work` with an invalidation the way another process's change would: in one
 * transaction, the invalidation clock moved on and the notice sent. No process applies it
 * at commit; each hears it through its listener.
 */
export async function commitInvalidation(database: Database, change: Invalidation, work?: (tx: Tx) => Promise<unknown>): Promise<void> {
  await database.db.transaction(async (tx) => {
    await work?.(tx);
    await announceInvalidations(tx, [change]);
  });
}
