import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { expectErrorBody, FORBIDDEN, expectInvalidBody, expectValidationError } from './assertions.js';
import { client } from './client.js';
import { useTestApp, keyWithScopes, request, signupTenant, TestClock } from './harness.js';

const INVALID_KEY = { error: 'unauthorized', message: 'Invalid, expired or revoked API key' };
const KEY_NOT_FOUND = { error: 'not_found', message: 'API key not found' };

const clock = new TestClock();
const t = useTestApp({ clock });
const api = client(t);

const me = (apiKey: string) => api.get({ apiKey }, '/api/v1/auth/me');

describe('POST /api/v1/api-keys', () => {
  it('issues an ai_ key shown once, stored only as a hash', async () => {
    const tenant = await signupTenant(t.app);
    const expiresAt = new Date(clock.now().getTime() + 86_400_000).toISOString();
    const response = await api.post(tenant.admin, '/api/v1/api-keys', {
      name: 'CI',
      scopes: ['agents:read', 'policies:read'],
      expires_at: expiresAt,
    });
    expect(response.statusCode).toBe(201);
    const key = response.json().data;
    expect(key).toEqual({
      id: expect.any(String),
      name: 'CI',
      key: expect.stringMatching(/^ai_[0-9a-f]{64}$/),
      prefix: key.key.slice(0, 12),
      key_prefix: key.key.slice(0, 12),
      scopes: ['agents:read', 'policies:read'],
      last_used_at: null,
      created_at: expect.any(String),
      expires_at: expiresAt,
    });

    const list = await api.get(tenant.admin, '/api/v1/api-keys');
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(key.key);
    expect(list.json().data.find((k: { id: string }) => k.id === key.id)).not.toHaveProperty('key');
    expect(list.json().pagination).toEqual({ total: 2, limit: 20, offset: 0 });

    const stored = await t.runtime.database.rows<{ key_hash: string }>(sql`select key_hash from api_keys where id = ${key.id}`);
    expect(stored[0]!.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored[0]!.key_hash).not.toContain(key.key.slice(3));
  });

  it.each([
    ['no scopes', { name: 'k', scopes: [] }, [['scopes', 'must NOT have fewer than 1 items']]],
    ['an unknown scope', { name: 'k', scopes: ['root'] }, [['scopes.0', 'must be equal to one of the allowed values']]],
    [
      'a duplicated scope',
      { name: 'k', scopes: ['admin', 'admin'] },
      [['scopes', 'must NOT have duplicate items (items ## 1 and 0 are identical)']],
    ],
    ['a missing name', { scopes: ['admin'] }, [['name', 'is required']]],
    [
      'a bad expiry',
      { name: 'k', scopes: ['admin'], expires_at: 'tomorrow' },
      // The schema is "date-time or null": Ajv reports each branch of the anyOf, and the anyOf itself.
      [
        ['expires_at', 'must match format "date-time"'],
        ['expires_at', 'must be null'],
        ['expires_at', 'must match a schema in anyOf'],
      ],
    ],
  ] as const)('rejects %s with 400', async (_label, payload, problems) => {
    const tenant = await signupTenant(t.app);
    expectInvalidBody(await api.post(tenant.admin, '/api/v1/api-keys', payload), problems);
  });

  it('rejects an expiry in the past with 400', async () => {
    const tenant = await signupTenant(t.app);
    const response = await api.post(tenant.admin, '/api/v1/api-keys', {
      name: 'k',
      scopes: ['admin'],
      expires_at: '2001-01-01T00:00:00.000Z',
    });
    expectValidationError(response, 'expires_at must be in the future', [{ field: 'expires_at', message: 'must be in the future' }]);
  });
});

describe('key lifecycle', () => {
  it('records last use', async () => {
    const tenant = await signupTenant(t.app);
    const key = await keyWithScopes(t.app, tenant, ['agents:read']);
    expect((await me(key.apiKey)).statusCode).toBe(200);
    const list = await api.get(tenant.admin, '/api/v1/api-keys');
    const listed = list.json().data.find((k: { id: string }) => k.id === key.id);
    expect(Date.parse(listed.last_used_at)).toBeGreaterThanOrEqual(clock.now().getTime() - 5_000);
  });

  it('rejects an expired key with 401', async () => {
    const tenant = await signupTenant(t.app);
    const created = await api.post(tenant.admin, '/api/v1/api-keys', {
      name: 'short-lived',
      scopes: ['admin'],
      expires_at: new Date(clock.now().getTime() + 60_000).toISOString(),
    });
    const apiKey = created.json().data.key;
    expect((await me(apiKey)).statusCode).toBe(200);
    clock.advance(61_000);
    expectErrorBody(await me(apiKey), 401, INVALID_KEY);
  });

  it('rotation keeps id, name and scopes, and the old value stops working at once', async () => {
    const tenant = await signupTenant(t.app);
    const key = await keyWithScopes(t.app, tenant, ['agents:read', 'traces:read']);
    expect((await me(key.apiKey)).statusCode).toBe(200);

    const rotated = await api.post(tenant.admin, `/api/v1/api-keys/${key.id}/rotate`);
    expect(rotated.statusCode).toBe(200);
    const fresh = rotated.json().data;
    expect(fresh).toMatchObject({ id: key.id, name: 'key agents:read traces:read', scopes: ['agents:read', 'traces:read'] });
    expect(fresh.key).toMatch(/^ai_[0-9a-f]{64}$/);
    expect(fresh.key).not.toBe(key.apiKey);
    expect(fresh.prefix).toBe(fresh.key.slice(0, 12));
    expect(fresh.key_prefix).toBe(fresh.prefix);

    expectErrorBody(await me(key.apiKey), 401, INVALID_KEY);
    expect((await me(fresh.key)).statusCode).toBe(200);
  });

  it('deletion invalidates the key at once', async () => {
    const tenant = await signupTenant(t.app);
    const key = await keyWithScopes(t.app, tenant, ['agents:read']);
    expect((await me(key.apiKey)).statusCode).toBe(200);
    const deleted = await api.delete(tenant.admin, `/api/v1/api-keys/${key.id}`);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expectErrorBody(await me(key.apiKey), 401, INVALID_KEY);
    const again = await api.delete(tenant.admin, `/api/v1/api-keys/${key.id}`);
    expectErrorBody(again, 404, KEY_NOT_FOUND);
  });

  it("answers 404 for another tenant's key and leaves it working", async () => {
    const owner = await signupTenant(t.app);
    const other = await signupTenant(t.app);
    const key = await keyWithScopes(t.app, owner, ['agents:read']);
    for (const [method, url] of [
      ['DELETE', `/api/v1/api-keys/${key.id}`],
      ['POST', `/api/v1/api-keys/${key.id}/rotate`],
    ] as const) {
      expectErrorBody(await request(t.app, other.admin, { method, url }), 404, KEY_NOT_FOUND);
    }
    expect((await me(key.apiKey)).statusCode).toBe(200);
  });

  it('an admin-scoped key manages keys; a key without admin scope may not', async () => {
    const tenant = await signupTenant(t.app);
    const admin = await keyWithScopes(t.app, tenant, ['admin']);
    const created = await api.post(admin, '/api/v1/api-keys', { name: 'by key', scopes: ['evaluate'] });
    expect(created.statusCode).toBe(201);
    expectErrorBody(await api.get(tenant.runtimeKey, '/api/v1/api-keys'), 403, FORBIDDEN);
  });

  it.each(['Bearer ai_123', `Bearer ai_${'f'.repeat(64)}`, 'Basic abc', 'Bearer'])(
    'rejects Authorization "%s" with 401',
    async (header) => {
      const response = await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: { authorization: header } });
      expectErrorBody(response, 401, INVALID_KEY);
    },
  );
});
