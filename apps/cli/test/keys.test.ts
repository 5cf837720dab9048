import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { SCOPES } from '@agov/domain';
import { client } from '../../api/test/client.js';
import { createTestApp, PASSWORD, uniqueEmail, useTestApp } from '../../api/test/harness.js';
import { agov } from './run.js';

const t = useTestApp();
const api = client(t);
const databaseUrl = inject('databaseUrl');
const MIGRATIONS = (
  JSON.parse(readFileSync(new URL('../../../packages/db/migrations/meta/_journal.json', import.meta.url), 'utf8')) as { entries: unknown[] }
).entries.length;
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const KEY = 'ai_[0-9a-f]{64}';

/** What `--json` prints. */
interface Created {
  tenant: { id: string; name: string };
  user: { id: string; name: string; email: string; role: string } | null;
  admin_password: string | null;
  api_key: { id: string; name: string; key_prefix: string; scopes: string[]; key: string };
}

async function created(args: string[], env: Record<string, string>): Promise<Created> {
  const run = await agov(['keys', 'create', ...args, '--json'], { env });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout);
}

const agentsWith = async (key: string) => (await api.get({ apiKey: key }, '/api/v1/agents')).statusCode;
const signIn = async (email: string, password: string) =>
  (await t.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email, password } })).statusCode;

describe('agov keys create', () => {
  it('bootstraps a tenant, its admin and a key with every scope that the API accepts', async () => {
    const email = uniqueEmail('cli');
    const result = await created(['--tenant-name', 'Self Hosted', '--email', email, '--admin-name', 'Sam Operator'], {
      DATABASE_URL: databaseUrl,
      AGOV_ADMIN_PASSWORD: PASSWORD,
    });
    expect(result).toEqual({
      tenant: { id: expect.stringMatching(new RegExp(`^${UUID}$`)), name: 'Self Hosted' },
      user: { id: expect.stringMatching(new RegExp(`^${UUID}$`)), name: 'Sam Operator', email, role: 'admin' },
      admin_password: null,
      api_key: {
        id: expect.any(String),
        name: 'Admin key',
        key_prefix: result.api_key.key.slice(0, 12),
        scopes: [...SCOPES],
        key: expect.stringMatching(new RegExp(`^${KEY}$`)),
      },
    });
    expect(await agentsWith(result.api_key.key)).toBe(200);
    expect(await signIn(email, PASSWORD)).toBe(200);
    const me = await api.get({ apiKey: result.api_key.key }, '/api/v1/api-keys');
    expect(me.json().data.map((key: { name: string }) => key.name)).toEqual(['Admin key']);
  });

  it('generates the admin password when none is given and prints it once, with the key last', async () => {
    const email = uniqueEmail('operator');
    const run = await agov(['keys', 'create', '--tenant-name', 'Generated', '--email', email, '--key-name', 'Ops'], {
      env: { DATABASE_URL: databaseUrl },
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    const lines = run.stdout.split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(new RegExp(`^created tenant "Generated" \\(id ${UUID}\\)$`));
    const [, password] =
      lines[1]!.match(
        new RegExp(
          `^created admin user "${email.split('@')[0]}" <${email}> \\(id ${UUID}\\), generated password, shown this once: ([A-Za-z0-9_-]{24})$`,
        ),
      ) ?? [];
    expect(password).toBeDefined();
    expect(lines[2]).toMatch(new RegExp(`^created API key "Ops" \\(id ${UUID}\\) with every scope; its secret, shown this once:$`));
    expect(lines[3]).toMatch(new RegExp(`^${KEY}$`));
    expect(lines[4]).toBe('');
    expect(await agentsWith(lines[3]!)).toBe(200);
    expect(await signIn(email, password!)).toBe(200);
  });

  it('adds a key to an existing tenant, and refuses an unknown tenant or an e-mail address taken', async () => {
    const env = { DATABASE_URL: databaseUrl, AGOV_ADMIN_PASSWORD: PASSWORD };
    const email = uniqueEmail('first');
    const first = await created(['--tenant-name', 'Existing', '--email', email], env);
    const second = await created(['--tenant-id', first.tenant.id, '--key-name', 'Second'], env);
    expect(second).toEqual({
      tenant: first.tenant,
      user: null,
      admin_password: null,
      api_key: {
        id: expect.any(String),
        name: 'Second',
        key_prefix: expect.any(String),
        scopes: [...SCOPES],
        key: expect.stringMatching(new RegExp(`^${KEY}$`)),
      },
    });
    expect(await agentsWith(second.api_key.key)).toBe(200);
    const text = await agov(['keys', 'create', '--tenant-id', first.tenant.id], { env });
    expect(text.stdout).toMatch(
      new RegExp(
        `^created API key "Admin key" \\(id ${UUID}\\) of tenant "Existing" \\(id ${first.tenant.id}\\) with every scope; its secret, shown this once:\n${KEY}\n$`,
      ),
    );

    expect(await agov(['keys', 'create', '--tenant-id', '8c4e5e43-4a7f-4b7e-9c55-0b2f4d0f7a10'], { env })).toEqual({
      status: 1,
      stdout: '',
      stderr: 'agov keys create: Tenant not found\n',
    });
    expect(await agov(['keys', 'create', '--tenant-name', 'Again', '--email', email.toUpperCase()], { env })).toEqual({
      status: 1,
      stdout: '',
      stderr: 'agov keys create: An account with this e-mail already exists\n',
    });
  });

  it('refuses a database it cannot reach, naming it without its URL', async () => {
    expect(
      await agov(['keys', 'create', '--tenant-id', '8c4e5e43-4a7f-4b7e-9c55-0b2f4d0f7a10'], {
        env: { DATABASE_URL: 'postgres://postgres:secret@127.0.0.1:1/none' },
      }),
    ).toEqual({
      status: 1,
      stdout: '',
      stderr: expect.stringMatching(/^agov keys create: cannot open the PostgreSQL database of DATABASE_URL: (?!.*secret).+\n$/),
    });
  });
});

describe('agov migrate', () => {
  const server = inject('serverUrl');
  const name = `${databaseUrl.split('/').pop()}_cli_${process.pid}`;
  const admin = postgres(server, { max: 1, onnotice: () => {} });
  afterAll(async () => {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  });

  it('migrates a fresh empty database, which keys create refuses until then', async () => {
    await admin.unsafe(`create database ${name}`);
    const env = { DATABASE_URL: Object.assign(new URL(server), { pathname: `/${name}` }).toString(), AGOV_ADMIN_PASSWORD: PASSWORD };
    const bootstrap = ['keys', 'create', '--tenant-name', 'Fresh', '--email', uniqueEmail('fresh')];
    expect(await agov(bootstrap, { env })).toEqual({
      status: 1,
      stdout: '',
      stderr: `agov keys create: the PostgreSQL database of DATABASE_URL is not migrated (${MIGRATIONS} migrations pending): run \`agov migrate\` first\n`,
    });
    expect(await agov(['migrate'], { env })).toEqual({
      status: 0,
      stdout: `applied ${MIGRATIONS} migrations to the PostgreSQL database of DATABASE_URL\n`,
      stderr: '',
    });
    expect(await agov(['migrate'], { env })).toEqual({
      status: 0,
      stdout: 'the PostgreSQL database of DATABASE_URL is up to date: no migrations to apply\n',
      stderr: '',
    });
    expect((await agov(bootstrap, { env })).status).toBe(0);
  });
});

describe('agov on embedded PostgreSQL', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agov-cli-embedded-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // Embedded PostgreSQL starts three times, one after the other: in two CLI runs, then in the service.
  it('migrates DATA_DIR and bootstraps a key that the service then accepts', async () => {
    const env = { DATA_DIR: dir, AGOV_ADMIN_PASSWORD: PASSWORD };
    expect(await agov(['migrate'], { env })).toEqual({
      status: 0,
      stdout: `applied ${MIGRATIONS} migrations to embedded PostgreSQL in ${dir}\n`,
      stderr: '',
    });
    const result = await created(['--tenant-name', 'Embedded', '--email', uniqueEmail('embedded')], env);
    const service = await createTestApp({ env: { DATABASE_URL: '', DATA_DIR: dir } });
    try {
      expect((await client(service.app).get({ apiKey: result.api_key.key }, '/api/v1/agents')).statusCode).toBe(200);
    } finally {
      await service.close();
    }
  }, 180_000);
});
