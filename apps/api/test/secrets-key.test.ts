import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '@agov/config';
import { runToExit } from '../../../test/processes.js';
import { startFakeSlack, type FakeSlack } from '../../../test/slack-api.js';
import { client } from './client.js';
import { action, createAgent, createPolicy } from './fixtures.js';
import { createTestApp, ownDatabase, request, signupTenant, type TestApp } from './harness.js';
import { evaluation } from './scenarios.js';

/* Where the key of stored secrets comes from, and what the service does without one. */
const HOWTO = 'openssl rand -base64 32';
const BOT = {
  mode: 'bot',
  app_id: 'A0TESTAPP',
  app_secret: 'f0e1d2c3b4a5968778695a4b3c2d1e0f',
  bot_token: 'xoxb-1111-2222-keyfileTOKEN',
  team_id: 'T0KEYFILE',
  channel_id: 'C0APPROVALS',
  enabled: true,
};
const WEBHOOK = { url: 'https://93.184.215.14/hook', events: ['approval.requested'] };

const saveBot = (t: TestApp, tenant: { admin: { cookie: string } }) =>
  request(t.app, tenant.admin, { method: 'PUT', url: '/api/v1/integrations/chat', payload: BOT });

describe('SECRETS_KEY', () => {
  it('must be base64 of exactly 32 bytes, and is never echoed', () => {
    const valid = Buffer.alloc(32, 5).toString('base64');
    expect(loadConfig({ SECRETS_KEY: valid }).secrets.key).toEqual(Buffer.alloc(32, 5));
    expect(loadConfig({ SECRETS_KEY: valid.replace(/=+$/, '') }).secrets.key).toEqual(Buffer.alloc(32, 5));
    for (const [name, value] of [
      ['SECRETS_KEY', Buffer.alloc(31, 5).toString('base64')],
      ['SECRETS_KEY', Buffer.alloc(33, 5).toString('base64')],
      ['SECRETS_KEY', `${valid.slice(0, 10)}!${valid.slice(10)}`],
      ['SECRETS_KEY', Buffer.alloc(32, 5).toString('hex')],
      ['SECRETS_KEY_PREVIOUS', 'not a key'],
    ] as const) {
      const env = { SECRETS_KEY: valid, [name]: value };
      expect(() => loadConfig(env)).toThrow(
        new ConfigError(name, 'must be base64 of exactly 32 bytes (generate one with `openssl rand -base64 32`)'),
      );
    }
    expect(() => loadConfig({ SECRETS_KEY_PREVIOUS: valid })).toThrow(
      new ConfigError('SECRETS_KEY_PREVIOUS', 'is set without SECRETS_KEY: the previous key only reads, and the current one writes'),
    );
  });
});

describe('production on a PostgreSQL server without SECRETS_KEY', () => {
  it('starts while no secret is stored, and refuses to store one with 503 naming SECRETS_KEY', async () => {
    const t = await createTestApp({ env: { DATABASE_URL: await ownDatabase(), SECRETS_KEY: '' } });
    try {
      const tenant = await signupTenant(t.app);
      const api = client(t.app);
      for (const refused of [await api.post(tenant.admin, '/api/v1/webhooks', WEBHOOK), await saveBot(t, tenant)]) {
        expect(refused.statusCode).toBe(503);
        expect(refused.json()).toMatchObject({
          error: 'service_unavailable',
          status: 503,
          message: 'Secrets cannot be stored: the service has no SECRETS_KEY. Its operator must set one.',
          details: { variable: 'SECRETS_KEY' },
        });
      }
      expect((await api.get(tenant.admin, '/api/v1/webhooks')).json()).toEqual({ data: [] });
      const [stored] = await t.runtime.database.rows<{ rows: number }>(
        sql`select (select count(*) from webhook_endpoints) + (select count(*) from chat_integrations) as rows`,
      );
      expect(Number(stored!.rows)).toBe(0);

      // A grant's signing key would be a stored secret: the approval still succeeds, without one.
      const agent = await createAgent(t.app, tenant.admin);
      await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'approval_required' });
      const evaluated = await evaluation(t.app, tenant, action(agent.id));
      const approved = await api.post(tenant.admin, `/api/v1/approvals/${evaluated.approval_request_id}/approve`, { approver_name: 'Ada' });
      expect(approved.statusCode, approved.body).toBe(200);
      const status = await api.get(tenant.runtimeKey, `/api/v1/approvals/${evaluated.approval_request_id}/status`);
      expect(status.json()).toMatchObject({ status: 'approved', grant: null });
      // Grants on allow change nothing either: the allow is decided and recorded without one.
      expect((await api.put(tenant.admin, '/api/v1/settings/grants', { issue_on_allow: true })).statusCode).toBe(200);
      await createPolicy(t.app, tenant.admin, agent.id, { operation: 'read', policy_effect: 'allow' });
      const allowed = await evaluation(t.app, tenant, action(agent.id, { operation: 'read' }));
      expect(allowed.decision).toBe('allow');
      expect(allowed).not.toHaveProperty('grant');
      expect((await api.get(tenant.runtimeKey, `/.well-known/jwks.json?tenant_id=${tenant.tenantId}`)).json()).toEqual({ keys: [] });
    } finally {
      await t.close();
    }
  });

  it('refuses to start the API or a worker once a secret is stored, saying how to make a key', async () => {
    const databaseUrl = await ownDatabase();
    const t = await createTestApp({ env: { DATABASE_URL: databaseUrl } });
    try {
      const tenant = await signupTenant(t.app);
      expect((await client(t.app).post(tenant.admin, '/api/v1/webhooks', WEBHOOK)).statusCode).toBe(201);
    } finally {
      await t.close();
    }

    const env = { NODE_ENV: 'production', DATABASE_URL: databaseUrl, SECRETS_KEY: '', PORT: '0', REDIS_URL: 'redis://127.0.0.1:6379' };
    for (const app of ['apps/api/dist/main.js', 'apps/worker/dist/main.js']) {
      const started = await runToExit(process.execPath, [app], env);
      expect(started.code, started.output).toBe(1);
      expect(started.output).toContain(
        'Invalid configuration: SECRETS_KEY is required: this database stores webhook or chat secrets, which are encrypted with it.',
      );
      expect(started.output).toContain(`generate one with \`${HOWTO}\``);
    }
  });
});

describe('without SECRETS_KEY elsewhere', () => {
  let slack: FakeSlack;
  const dataDirs: string[] = [];
  beforeAll(async () => {
    slack = await startFakeSlack();
  });
  afterAll(async () => {
    await slack.close();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'agov-secrets-'));
    dataDirs.push(dir);
    return dir;
  };
  const announcements = (t: TestApp) => t.logs.filter((line) => line.includes('generated a key for the stored secrets'));

  it('embedded: generates DATA_DIR/secrets.key (0600) on first start, says so once, and uses it after a restart', async () => {
    const dir = dataDir();
    const env = { DATABASE_URL: '', DATA_DIR: dir, MIGRATE_ON_START: 'true', SECRETS_KEY: '', SLACK_API_URL: slack.apiUrl };
    const keyFile = join(dir, 'secrets.key');

    const first = await createTestApp({ env });
    const key = readFileSync(keyFile, 'utf8');
    let tenant: Awaited<ReturnType<typeof signupTenant>>;
    try {
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      expect(Buffer.from(key.trim(), 'base64')).toHaveLength(32);
      const [announced] = announcements(first);
      expect(announcements(first)).toHaveLength(1);
      expect(JSON.parse(announced!)).toMatchObject({ level: 40, path: keyFile });
      expect(first.logs.join('\n')).not.toContain(key.trim());

      tenant = await signupTenant(first.app);
      expect((await saveBot(first, tenant)).statusCode).toBe(200);
      const [row] = await first.runtime.database.rows<{ settings: Record<string, string> }>(
        sql`select settings from chat_integrations where tenant_id = ${tenant.tenantId}`,
      );
      const keyId = createHash('sha256').update(Buffer.from(key.trim(), 'base64')).digest('hex').slice(0, 8);
      expect(row!.settings.bot_token!.startsWith(`enc:v1:${keyId}:`)).toBe(true);
    } finally {
      await first.close();
    }

    const second = await createTestApp({ env });
    try {
      expect(readFileSync(keyFile, 'utf8')).toBe(key);
      expect(announcements(second)).toHaveLength(0);
      const tested = await client(second.app).post(tenant.admin, '/api/v1/integrations/chat/test');
      expect(tested.json()).toEqual({ data: { delivered: true, error: null } });
      expect(slack.callsTo('chat.postMessage').at(-1)!.token).toBe(BOT.bot_token);
    } finally {
      await second.close();
    }
    // Two starts of embedded PostgreSQL, each migrating a new directory at first.
  }, 120_000);

  it('development on a PostgreSQL server: keeps its key in DATA_DIR as well', async () => {
    const dir = dataDir();
    const t = await createTestApp({ env: { NODE_ENV: 'development', DATA_DIR: dir, SECRETS_KEY: '' } });
    try {
      expect(statSync(join(dir, 'secrets.key')).mode & 0o777).toBe(0o600);
      expect(announcements(t)).toHaveLength(1);
    } finally {
      await t.close();
    }
  });
});
