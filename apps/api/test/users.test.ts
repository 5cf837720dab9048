import { describe, expect, it } from 'vitest';
import { expectErrorBody, FORBIDDEN, expectInvalidBody } from './assertions.js';
import { client } from './client.js';
import { useTestApp, PASSWORD, request, sessionWithRole, signupTenant, uniqueEmail } from './harness.js';

const SIGNED_OUT = { error: 'unauthorized', message: 'Session expired or signed out' };
const LAST_ADMIN = { error: 'conflict', message: 'A tenant must keep at least one admin' };

const t = useTestApp();
const api = client(t);

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
    expectErrorBody(await api.get(reviewer, '/api/v1/auth/me'), 401, SIGNED_OUT);
  });

  it('never removes or demotes the last admin', async () => {
    const tenant = await signupTenant(t.app);
    const demote = await api.patch(tenant.admin, `/api/v1/users/${tenant.userId}`, { role: 'viewer' });
    expectErrorBody(demote, 409, LAST_ADMIN);
    const remove = await api.delete(tenant.admin, `/api/v1/users/${tenant.userId}`);
    expectErrorBody(remove, 409, LAST_ADMIN);
  });

  it('deletes a user, whose session then stops working', async () => {
    const tenant = await signupTenant(t.app);
    const viewer = await sessionWithRole(t.app, tenant, 'viewer');
    const userId = (await api.get(viewer, '/api/v1/auth/me')).json().data.user.id;
    const deleted = await api.delete(tenant.admin, `/api/v1/users/${userId}`);
    expect(deleted.statusCode).toBe(204);
    expectErrorBody(await api.get(viewer, '/api/v1/auth/me'), 401, SIGNED_OUT);
  });

  it('refuses a duplicate e-mail, a weak password, an unknown role and an empty PATCH', async () => {
    const tenant = await signupTenant(t.app);
    const duplicate = await api.post(tenant.admin, '/api/v1/users', { name: 'X', email: tenant.email, password: PASSWORD, role: 'viewer' });
    expectErrorBody(duplicate, 409, { error: 'conflict', message: 'An account with this e-mail already exists' });
    const weak = await api.post(tenant.admin, '/api/v1/users', { name: 'X', email: uniqueEmail(), password: 'short', role: 'viewer' });
    expectInvalidBody(weak, [['password', 'must NOT have fewer than 12 characters']]);
    const role = await api.post(tenant.admin, '/api/v1/users', { name: 'X', email: uniqueEmail(), password: PASSWORD, role: 'owner' });
    expectInvalidBody(role, [['role', 'must be equal to one of the allowed values']]);
    const empty = await api.patch(tenant.admin, `/api/v1/users/${tenant.userId}`, {});
    expectInvalidBody(empty, [['(body)', 'must NOT have fewer than 1 properties']]);
  });

  it("answers 404 for another tenant's user", async () => {
    const owner = await signupTenant(t.app);
    const other = await signupTenant(t.app);
    for (const options of [
      { method: 'PATCH', url: `/api/v1/users/${owner.userId}`, payload: { name: 'Mallory' } },
      { method: 'DELETE', url: `/api/v1/users/${owner.userId}` },
    ] as const) {
      expectErrorBody(await request(t.app, other.admin, options), 404, { error: 'not_found', message: 'User not found' });
    }
    const me = await api.get(owner.admin, '/api/v1/auth/me');
    expect(me.json().data.user.name).toBe('Ada Admin');
  });

  it('only admins manage users', async () => {
    const tenant = await signupTenant(t.app);
    const reviewer = await sessionWithRole(t.app, tenant, 'reviewer');
    expectErrorBody(await api.get(reviewer, '/api/v1/users'), 403, {
      ...FORBIDDEN,
      details: { required_role: 'admin', role: 'reviewer' },
    });
  });
});
