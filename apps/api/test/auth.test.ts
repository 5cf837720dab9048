import { describe, expect, it } from 'vitest';
import { expectErrorBody, expectInvalidBody } from './assertions.js';
import { client } from './client.js';
import { useTestApp, PASSWORD, sessionCookie, signupTenant, uniqueEmail } from './harness.js';

const SIGNED_OUT = { error: 'unauthorized', message: 'Session expired or signed out' };

const t = useTestApp();
const api = client(t);

const signup = (payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/api/v1/auth/signup', payload });

describe('POST /api/v1/auth/signup', () => {
  it('creates a tenant, its admin, a session cookie and an agent-runtime key', async () => {
    const email = uniqueEmail();
    const response = await signup({ organization_name: 'Initech', name: 'Peter', email, password: PASSWORD });

    expect(response.statusCode).toBe(201);
    expect(response.json()).toEqual({
      data: {
        tenant: { id: expect.any(String), name: 'Initech' },
        user: { id: expect.any(String), email, name: 'Peter', role: 'admin', created_at: expect.any(String) },
        api_key: {
          id: expect.any(String),
          name: 'Agent runtime',
          key: expect.stringMatching(/^ai_[0-9a-f]{64}$/),
          prefix: expect.any(String),
          key_prefix: expect.any(String),
          scopes: ['evaluate', 'traces:read', 'traces:write', 'approvals:read', 'policies:read'],
          last_used_at: null,
          created_at: expect.any(String),
          expires_at: null,
        },
      },
    });
    const { api_key } = response.json().data;
    expect(api_key.prefix).toBe(api_key.key.slice(0, 12));
    expect(api_key.key_prefix).toBe(api_key.prefix);

    const cookie = response.cookies.find((c) => c.name === 'agov_session');
    // Secure: the suite runs in production, where the service sits behind TLS.
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', secure: true });
  });

  it('refuses a second account with the same e-mail, whatever its case', async () => {
    const email = uniqueEmail();
    expect((await signup({ organization_name: 'A', name: 'A', email, password: PASSWORD })).statusCode).toBe(201);
    const again = await signup({ organization_name: 'B', name: 'B', email: email.toUpperCase(), password: PASSWORD });
    expectErrorBody(again, 409, { error: 'conflict', message: 'An account with this e-mail already exists' });
  });

  it.each([
    ['a short password', { password: 'short' }, 'password', 'must NOT have fewer than 12 characters'],
    ['a missing name', { name: undefined }, 'name', 'is required'],
    ['a malformed e-mail', { email: 'not-an-email' }, 'email', 'must match format "email"'],
    ['an unknown field', { plan: 'enterprise' }, 'plan', 'is not allowed'],
    ['a number where text belongs', { organization_name: 42 }, 'organization_name', 'must be string'],
  ])('rejects %s with 400 naming the field', async (_label, change, field, problem) => {
    const payload = { organization_name: 'Org', name: 'Name', email: uniqueEmail(), password: PASSWORD, ...change };
    expectInvalidBody(await signup(payload), [[field, problem]]);
  });
});

describe('login, me and logout', () => {
  it('logs in with the right password and answers who the caller is', async () => {
    const tenant = await signupTenant(t.app, 'Globex');
    const login = await t.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: tenant.email, password: PASSWORD } });
    expect(login.statusCode).toBe(200);
    expect(login.json()).toEqual({
      data: {
        user: { id: tenant.userId, email: tenant.email, name: 'Ada Admin', role: 'admin', created_at: expect.any(String) },
        tenant: { id: tenant.tenantId, name: 'Globex' },
      },
    });

    const me = await api.get({ cookie: sessionCookie(login) }, '/api/v1/auth/me');
    expect(me.statusCode).toBe(200);
    expect(me.json().data).toMatchObject({ user: { id: tenant.userId }, tenant: { id: tenant.tenantId }, role: 'admin', api_key: null });
  });

  it('answers wrong password and unknown e-mail with the same 401', async () => {
    const tenant = await signupTenant(t.app);
    const wrong = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: tenant.email, password: 'wrong password!!' },
    });
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: uniqueEmail(), password: PASSWORD },
    });
    const refused = { error: 'unauthorized', message: 'Invalid e-mail or password' };
    expectErrorBody(wrong, 401, refused);
    expectErrorBody(unknown, 401, refused);
  });

  it('me with an API key names the key and no user', async () => {
    const tenant = await signupTenant(t.app);
    const me = await api.get(tenant.runtimeKey, '/api/v1/auth/me');
    expect(me.statusCode).toBe(200);
    expect(me.json().data).toMatchObject({ user: null, role: null, tenant: { id: tenant.tenantId }, api_key: { name: 'Agent runtime' } });
  });

  it('logout ends the session on the server', async () => {
    const tenant = await signupTenant(t.app);
    const logout = await api.post(tenant.admin, '/api/v1/auth/logout');
    expect(logout.statusCode).toBe(204);
    expect(logout.body).toBe('');
    // The old cookie is useless even if a client kept it.
    expectErrorBody(await api.get(tenant.admin, '/api/v1/auth/me'), 401, SIGNED_OUT);
  });

  it('refuses a cookie-authenticated change without X-Requested-With (CSRF)', async () => {
    const tenant = await signupTenant(t.app);
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: { cookie: tenant.admin.cookie },
      payload: { name: 'k', scopes: ['admin'] },
    });
    expectErrorBody(response, 403, {
      error: 'forbidden',
      message: 'Cookie-authenticated changes must send X-Requested-With: XMLHttpRequest',
    });
  });

  it('rejects an unknown session cookie with 401', async () => {
    expectErrorBody(await api.get({ cookie: 'agov_session=forged' }, '/api/v1/auth/me'), 401, SIGNED_OUT);
  });
});
