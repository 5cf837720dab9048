import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { outbox } from '@agov/db';
import {
  cacheEntryFor,
  expectErrorBody,
  expectInvalidBody,
  expectValidationError,
  FORBIDDEN,
  MALFORMED_ID,
  notFound,
  stopUntilTestEnds,
  UNAUTHENTICATED,
} from './assertions.js';
import { client } from './client.js';
import { createAgent } from './fixtures.js';
import { useTestApp, keyWithScopes, request, sessionWithRole, signupTenant, TestClock, type Tenant } from './harness.js';

const clock = new TestClock();
const t = useTestApp({ clock });
const api = client(t);

/** The tenant's webhook effects in the order they were made: a table has no order of its own, and a row updated since moves. */
const webhooks = async (tenantId: string) =>
  (await t.runtime.database.db.select().from(outbox).where(eq(outbox.tenantId, tenantId)).orderBy(outbox.createdAt, outbox.id))
    .filter((row) => row.kind === 'webhook')
    .map((row) => ({ event: row.payload.event, data: row.payload.data }));

describe('PATCH /api/v1/agents/:id', () => {
  it('changes only the given fields and stamps modified_by and modified_at', async () => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    const stale = cacheEntryFor(t, agent.id);
    const at = stopUntilTestEnds(clock);
    const response = await api.patch(tenant.admin, `/api/v1/agents/${agent.id}`, { autonomy_tier: 'high', metadata: null });
    expect(response.statusCode).toBe(200);
    const updated = response.json().data;
    expect(updated).toEqual({ ...agent, autonomy_tier: 'high', metadata: null, modified_by: 'Ada Admin', modified_at: at.toISOString() });
    expect(stale()).toBeUndefined();
    expect((await api.get(tenant.admin, `/api/v1/agents/${agent.id}`)).json().data).toMatchObject(updated);
  });

  it('keeps a stated modified_by and modified_at, and names a key by its name otherwise', async () => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    const stated = await api.patch(tenant.admin, `/api/v1/agents/${agent.id}`, {
      modified_by: 'Change Board',
      modified_at: '2025-07-01T00:00:00+02:00',
    });
    expect(stated.json().data).toEqual({ ...agent, modified_by: 'Change Board', modified_at: '2025-06-30T22:00:00.000Z' });

    const key = await keyWithScopes(t.app, tenant, ['agents:write']);
    const byKey = await api.patch({ apiKey: key.apiKey }, `/api/v1/agents/${agent.id}`, {
      authorized_integrations: [
        { name: 'crm', resource_scope: 'contacts/*', data_classification: 'internal', allowed_operations: ['read'] },
      ],
    });
    expect(byKey.statusCode).toBe(200);
    expect(byKey.json().data.modified_by).toBe('api_key:key agents:write');
    expect(byKey.json().data.authorized_integrations).toEqual([
      { name: 'crm', resource_scope: 'contacts/*', data_classification: 'internal', allowed_operations: ['read'] },
    ]);
  });

  it.each([
    ['an empty body', {}, [['(body)', 'must NOT have fewer than 1 properties']]],
    ['an unknown field', { nickname: 'x' }, [['nickname', 'is not allowed']]],
    ['a server-owned lifecycle_state', { lifecycle_state: 'revoked' }, [['lifecycle_state', 'is not allowed']]],
    ['a server-owned id', { id: randomUUID() }, [['id', 'is not allowed']]],
    ['an invalid enumerated value', { environment: 'staging' }, [['environment', 'must be equal to one of the allowed values']]],
    ['null for a required text field', { name: null }, [['name', 'must be string']]],
    [
      'a bad review date',
      { next_review_date: '31/12/2026' },
      [
        ['next_review_date', 'must match format "date"'],
        ['next_review_date', 'must match format "date-time"'],
        ['next_review_date', 'must match a schema in anyOf'],
      ],
    ],
  ] as const)('rejects %s with 400 and changes nothing', async (_label, payload, problems) => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    const response = await api.patch(tenant.admin, `/api/v1/agents/${agent.id}`, payload);
    expectInvalidBody(response, problems);
    expect((await api.get(tenant.admin, `/api/v1/agents/${agent.id}`)).json().data).toMatchObject(agent);
  });

  it('answers 404 for another tenant’s agent and leaves it unchanged', async () => {
    const tenant = await signupTenant(t.app);
    const other = await signupTenant(t.app);
    const foreign = await createAgent(t.app, other.admin);
    expectErrorBody(await api.patch(tenant.admin, `/api/v1/agents/${foreign.id}`, { name: 'Hijacked' }), 404, notFound('Agent'));
    expectErrorBody(await api.patch(tenant.admin, '/api/v1/agents/123', { name: 'Hijacked' }), 404, MALFORMED_ID);
    expect((await api.get(other.admin, `/api/v1/agents/${foreign.id}`)).json().data).toMatchObject(foreign);
  });

  it('requires agents:write or an admin session', async () => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    const url = `/api/v1/agents/${agent.id}`;
    expectErrorBody(await api.patch(null, url, { name: 'x' }), 401, UNAUTHENTICATED);
    for (const scopes of [['agents:read'], ['agents:lifecycle']]) {
      expectErrorBody(await api.patch({ apiKey: (await keyWithScopes(t.app, tenant, scopes)).apiKey }, url, { name: 'x' }), 403, FORBIDDEN);
    }
    expectErrorBody(await api.patch(await sessionWithRole(t.app, tenant, 'viewer'), url, { name: 'x' }), 403, FORBIDDEN);
    expect((await api.get(tenant.admin, url)).json().data.name).toBe(agent.name);
  });
});

describe('agent lifecycle', () => {
  type State = 'active' | 'suspended' | 'revoked';
  const reach = async (tenant: Tenant, state: State) => {
    const agent = await createAgent(t.app, tenant.admin);
    if (state === 'suspended') expect((await api.post(tenant.admin, `/api/v1/agents/${agent.id}/suspend`)).statusCode).toBe(200);
    if (state === 'revoked') expect((await api.post(tenant.admin, `/api/v1/agents/${agent.id}/revoke`)).statusCode).toBe(200);
    return agent;
  };

  it.each([
    ['active', 'suspend', 'suspended', 'agent.suspended'],
    ['active', 'revoke', 'revoked', 'agent.revoked'],
    ['suspended', 'revoke', 'revoked', 'agent.revoked'],
    ['suspended', 'reactivate', 'active', null],
  ] as const)('%s --%s--> %s', async (from, action, to, event) => {
    const tenant = await signupTenant(t.app);
    const agent = await reach(tenant, from);
    const earlier = await webhooks(tenant.tenantId);
    const stale = cacheEntryFor(t, agent.id);
    // A second after everything `reach` stamped, and held there: the transition's own time.
    clock.advance(1_000);
    const at = stopUntilTestEnds(clock);
    const response = await api.post(tenant.admin, `/api/v1/agents/${agent.id}/${action}`);
    expect(response.statusCode).toBe(200);
    const moved = response.json().data;
    expect(moved).toEqual({ ...agent, lifecycle_state: to, modified_by: 'Ada Admin', modified_at: at.toISOString() });
    expect(Date.parse(moved.modified_at)).toBeGreaterThan(Date.parse(agent.modified_at as string));
    expect(stale()).toBeUndefined();
    expect(await webhooks(tenant.tenantId)).toEqual([...earlier, ...(event ? [{ event, data: { agent: moved } }] : [])]);
  });

  it.each([
    ['active', 'reactivate', 'agent is active; only suspended agents can be reactivated'],
    ['suspended', 'suspend', 'agent is suspended; only active agents can be suspended'],
    ['revoked', 'suspend', 'agent is revoked; revoked agents cannot be suspended'],
    ['revoked', 'revoke', 'agent is revoked; revoked agents cannot be revoked again'],
    ['revoked', 'reactivate', 'agent is revoked; revoked agents cannot be reactivated'],
  ] as const)('refuses %s --%s--> with 409', async (from, action, message) => {
    const tenant = await signupTenant(t.app);
    const agent = await reach(tenant, from);
    const before = (await api.get(tenant.admin, `/api/v1/agents/${agent.id}`)).json().data;
    const earlier = await webhooks(tenant.tenantId);
    const response = await api.post(tenant.admin, `/api/v1/agents/${agent.id}/${action}`);
    expectErrorBody(response, 409, { error: 'conflict', message, details: { lifecycle_state: from } });
    expect((await api.get(tenant.admin, `/api/v1/agents/${agent.id}`)).json().data).toEqual(before);
    expect(await webhooks(tenant.tenantId)).toEqual(earlier);
  });

  it('lets exactly one of two concurrent suspensions win', async () => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    const results = await Promise.all([1, 2].map(() => api.post(tenant.admin, `/api/v1/agents/${agent.id}/suspend`)));
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect((await webhooks(tenant.tenantId)).map((w) => w.event)).toEqual(['agent.suspended']);
  });

  it('takes no body: none, an empty JSON body or {} work; fields are refused', async () => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    const url = `/api/v1/agents/${agent.id}`;
    const emptyJson = await request(t.app, tenant.admin, {
      method: 'POST',
      url: `${url}/suspend`,
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    expect(emptyJson.statusCode, emptyJson.body).toBe(200);
    expect((await api.post(tenant.admin, `${url}/reactivate`, {})).statusCode).toBe(200);
    const withField = await api.post(tenant.admin, `${url}/suspend`, { lifecycle_state: 'revoked' });
    expectValidationError(withField, 'This endpoint takes no body', [{ field: 'lifecycle_state', message: 'is not allowed' }]);
    expect((await api.get(tenant.admin, url)).json().data.lifecycle_state).toBe('active');
  });

  it('requires agents:lifecycle (not agents:write) or an admin session; other tenants get 404', async () => {
    const tenant = await signupTenant(t.app);
    const other = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    const foreign = await createAgent(t.app, other.admin);
    const lifecycleKey = { apiKey: (await keyWithScopes(t.app, tenant, ['agents:lifecycle'])).apiKey };
    for (const action of ['suspend', 'revoke', 'reactivate']) {
      const url = `/api/v1/agents/${agent.id}/${action}`;
      expectErrorBody(await api.post(null, url), 401, UNAUTHENTICATED);
      expectErrorBody(
        await api.post({ apiKey: (await keyWithScopes(t.app, tenant, ['agents:write', 'agents:read'])).apiKey }, url),
        403,
        FORBIDDEN,
      );
      expectErrorBody(await api.post(await sessionWithRole(t.app, tenant, 'viewer'), url), 403, FORBIDDEN);
      expectErrorBody(await api.post(await sessionWithRole(t.app, tenant, 'reviewer'), url), 403, FORBIDDEN);
      expectErrorBody(await api.post(lifecycleKey, `/api/v1/agents/${foreign.id}/${action}`), 404, notFound('Agent'));
      expectErrorBody(await api.post(lifecycleKey, `/api/v1/agents/${randomUUID()}/${action}`), 404, notFound('Agent'));
      expectErrorBody(await api.post(lifecycleKey, `/api/v1/agents/nope/${action}`), 404, MALFORMED_ID);
    }
    expect((await api.get(other.admin, `/api/v1/agents/${foreign.id}`)).json().data.lifecycle_state).toBe('active');
    const suspended = await api.post(lifecycleKey, `/api/v1/agents/${agent.id}/suspend`);
    expect(suspended.json().data).toMatchObject({ lifecycle_state: 'suspended', modified_by: 'api_key:key agents:lifecycle' });
  });
});
