import { describe, expect, it } from 'vitest';
import { client } from './client.js';
import { useTestApp, keyWithScopes, PASSWORD, signupTenant } from './harness.js';

const t = useTestApp({ env: { LOG_LEVEL: 'trace' } });
const api = client(t);

describe('secrets', () => {
  it('never appear in logs, and never in a response after creation', async () => {
    const tenant = await signupTenant(t.app);
    const key = await keyWithScopes(t.app, tenant, ['admin']);
    const sessionToken = tenant.admin.cookie.split('=')[1]!;

    // Use every secret the way a client would, including failures that get logged.
    await api.get(key, '/api/v1/api-keys');
    await api.get(tenant.admin, '/api/v1/auth/me');
    await t.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: tenant.email, password: PASSWORD } });
    await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: { authorization: `Bearer ${key.apiKey}x` } });
    const rotated = await api.post(key, `/api/v1/api-keys/${key.id}/rotate`);
    const newKey = rotated.json().data.key;

    const logs = t.logs.join('\n');
    expect(logs.length).toBeGreaterThan(1_000);
    for (const secret of [key.apiKey, newKey, tenant.runtimeKey.apiKey, sessionToken, PASSWORD]) {
      expect(logs).not.toContain(secret);
    }

    const reads = await Promise.all([
      api.get({ apiKey: newKey }, '/api/v1/api-keys'),
      api.get(tenant.admin, '/api/v1/users'),
      api.get(tenant.admin, '/api/v1/auth/me'),
    ]);
    for (const response of reads) {
      expect(response.statusCode).toBe(200);
      for (const secret of [newKey, tenant.runtimeKey.apiKey, sessionToken, PASSWORD]) expect(response.body).not.toContain(secret);
      expect(response.body).not.toMatch(/argon2|password_hash|key_hash/);
    }
  });
});
