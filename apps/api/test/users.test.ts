import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, client } from './client.js';
import { createTestApp, PASSWORD, request, sessionWithRole, signupTenant, uniqueEmail, type TestApp } from './harness.js';

let t: TestApp;
let api: Client;
beforeAll(async () => {
  t = await createTestApp();
  api = client(t.app);
});
afterAll(() => t.close());

describe('users', () => {
  it('an admin invites a reviewer, who can then sign in with that role', async () => {
    const tenant = await signupTenant(t.app);
    const email = uniqueEmail('reviewer');
    const created = await api.post(tenant.admin, '/api/v1/users', { name: 'Rita Reviewer', email, password: PASSWORD, role: 'reviewer' });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({
      data: { id: expect.any(String), email, name: 'Rita Reviewer', role: 'reviewer', created_at: expect.any(String) },
    });
    expect(created.body).not.toContain(PASSWORD);

    const list = await api.get(tenant.admin, '/api/v1/users?limit=1');
    expect(list.statusCode).toBe(200);
    expect(list.json().pagination).toEqual({ total: 2, limit: 1, offset: 0 });
    expect(list.json().data).toHaveLength(1);

    const login = await t.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email, password: PASSWORD } });
    expect(login.json().data.user.role).toBe('reviewer');
  });

  it('changes a role and ends that user’s sessions, so old rights do not linger', async () => {
    const tenant = await signupTenant(t.app);
    const reviewer = await sessionWithRole(t.app, tenant, 'reviewer');
    const me = await api.get(reviewer, '/api/v1/auth/me');
    const userId = me.json().data.user.id;

    const patched = await api.patch(tenant.admin, `/api/v1/users/${userId}`, { role: 'viewer' });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().data.role).toBe('viewer');
    expect((await api.get(reviewer, '/api/v1/auth/me')).statusCode).toBe(401);
  });

  it('never removes or demotes the last admin', async () => {
    const tenant = await signupTenant(t.app);
    const demote = await api.patch(tenant.admin, `/api/v1/users/${tenant.userId}`, { role: 'viewer' });
    expect(demote.statusCode).toBe(409);
    const remove = await api.delete(tenant.admin, `/api/v1/users/${tenant.userId}`);
    expect(remove.statusCode).toBe(409);
    expect(remove.json().error).toBe('conflict');
  });

  it('deletes a user, whose session then stops working', async () => {
    const tenant = await signupTenant(t.app);
    const viewer = await sessionWithRole(t.app, tenant, 'viewer');
    const userId = (await api.get(viewer, '/api/v1/auth/me')).json().data.user.id;
    const deleted = await api.delete(tenant.admin, `/api/v1/users/${userId}`);
    expect(deleted.statusCode).toBe(204);
    expect((await api.get(viewer, '/api/v1/auth/me')).statusCode).toBe(401);
  });

  it('refuses a duplicate e-mail, a weak password, an unknown role and an empty PATCH', async () => {
    const tenant = await signupTenant(t.app);
    const cases = [
      [{ method: 'POST', url: '/api/v1/users', payload: { name: 'X', email: tenant.email, password: PASSWORD, role: 'viewer' } }, 409],
      [{ method: 'POST', url: '/api/v1/users', payload: { name: 'X', email: uniqueEmail(), password: 'short', role: 'viewer' } }, 400],
      [{ method: 'POST', url: '/api/v1/users', payload: { name: 'X', email: uniqueEmail(), password: PASSWORD, role: 'owner' } }, 400],
      [{ method: 'PATCH', url: `/api/v1/users/${tenant.userId}`, payload: {} }, 400],
    ] as const;
    for (const [options, status] of cases) {
      const response = await request(t.app, tenant.admin, options);
      expect(response.statusCode, JSON.stringify(options)).toBe(status);
    }
  });

  it("answers 404 for another tenant's user", async () => {
    const owner = await signupTenant(t.app);
    const other = await signupTenant(t.app);
    for (const options of [
      { method: 'PATCH', url: `/api/v1/users/${owner.userId}`, payload: { name: 'Mallory' } },
      { method: 'DELETE', url: `/api/v1/users/${owner.userId}` },
    ] as const) {
      const response = await request(t.app, other.admin, options);
      expect(response.statusCode).toBe(404);
    }
    const me = await api.get(owner.admin, '/api/v1/auth/me');
    expect(me.json().data.user.name).toBe('Ada Admin');
  });

  it('only admins manage users', async () => {
    const tenant = await signupTenant(t.app);
    const reviewer = await sessionWithRole(t.app, tenant, 'reviewer');
    const response = await api.get(reviewer, '/api/v1/users');
    expect(response.statusCode).toBe(403);
  });
});
