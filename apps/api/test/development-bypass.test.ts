import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '@agov/config';
import { PASSWORD, uniqueEmail, useTestApp } from './harness.js';

const bypass = { 'x-dev-bypass': 'true' };

describe('X-Dev-Bypass in development', () => {
  const t = useTestApp({ env: { NODE_ENV: 'development' } });

  it('acts as an admin of the Development tenant, created on first use', async () => {
    const first = await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bypass });
    expect(first.statusCode).toBe(200);
    expect(first.json().data).toMatchObject({ tenant: { name: 'Development' }, role: 'admin', user: null });
    const second = await t.app.inject({ method: 'GET', url: '/api/v1/api-keys', headers: bypass });
    expect(second.statusCode).toBe(200);
    const again = await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bypass });
    expect(again.json().data.tenant.id).toBe(first.json().data.tenant.id);
  });

  it('sets the session cookie without Secure, for plain http on the local host', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/signup',
      payload: { organization_name: 'Local', name: 'Dev', email: uniqueEmail('dev'), password: PASSWORD },
    });
    expect(response.statusCode).toBe(201);
    const cookie = response.cookies.find((c) => c.name === 'agov_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(cookie?.secure).toBeUndefined();
  });
});

describe('X-Dev-Bypass in production', () => {
  const t = useTestApp({ env: { NODE_ENV: 'production' } });

  it('is ignored', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/api-keys', headers: bypass });
    expect(response.statusCode).toBe(401);
    expect(response.json().error).toBe('unauthorized');
  });
});

describe('NODE_ENV', () => {
  it('is production when unset', () => {
    expect(loadConfig({}).mode).toBe('production');
  });

  it.each(['test', 'staging', 'Production'])('refuses %s, a mode there is not', (mode) => {
    expect(() => loadConfig({ NODE_ENV: mode })).toThrow(
      new ConfigError('NODE_ENV', `must be one of production, development (got "${mode}")`),
    );
  });
});
