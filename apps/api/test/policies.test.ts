import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outbox } from '@agov/db';
import { cacheEntryFor, expectError, fieldsOf, ISO_TIME, newestFirst } from './assertions.js';
import { type Client, client } from './client.js';
import { createAgent } from './fixtures.js';
import { createTestApp, keyWithScopes, sessionWithRole, signupTenant, type Tenant, type TestApp } from './harness.js';

let t: TestApp;
let api: Client;
beforeAll(async () => {
  t = await createTestApp();
  api = client(t.app);
});
afterAll(() => t.close());

type Json = Record<string, unknown> & { id: string };

const ruleBody = (agentId: string, overrides: Record<string, unknown> = {}) => ({
  agent_id: agentId,
  policy_name: 'Approve large refunds',
  target_integration: 'payments',
  operation: 'refund',
  resource_scope: 'refunds/*',
  data_classification: 'confidential',
  policy_effect: 'approval_required',
  rationale: 'Refunds move money and need a second pair of eyes',
  priority: 100,
  conditions: { '>': [{ var: 'context.amount' }, 1000] },
  max_session_ttl: 3600,
  modified_by: 'Olga',
  modified_at: '2025-06-02T08:00:00Z',
  ...overrides,
});

async function setup(overrides: Record<string, unknown> = {}) {
  const tenant = await signupTenant(t.app);
  const agent = await createAgent(t.app, tenant.admin);
  const response = await api.post(tenant.admin, '/api/v1/policies', ruleBody(agent.id, overrides));
  expect(response.statusCode, response.body).toBe(201);
  return { tenant, agent, rule: response.json().data as Json };
}

const policyEvents = async (tenantId: string) =>
  (await t.runtime.database.db.select().from(outbox).where(eq(outbox.tenantId, tenantId)).orderBy(outbox.createdAt)).map((row) => ({
    kind: row.kind,
    event: row.payload.event,
    data: row.payload.data,
  }));

const versions = async (tenant: Tenant, ruleId: string) =>
  (await api.get(tenant.admin, `/api/v1/policies/${ruleId}/versions`)).json().data as Json[];

describe('POST /api/v1/policies', () => {
  it('creates version 1 of an active rule, records version 1 and announces it', async () => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    const stale = cacheEntryFor(t, agent.id);
    const body = ruleBody(agent.id);
    const response = await api.post(tenant.admin, '/api/v1/policies', body);
    expect(response.statusCode).toBe(201);
    const rule = response.json().data;
    const { agent_id, modified_at, ...fields } = body;
    expect(rule).toEqual({
      id: expect.any(String),
      agent_id,
      ...fields,
      modified_at: '2025-06-02T08:00:00.000Z',
      is_active: true,
      policy_version: 1,
      created_at: ISO_TIME,
      updated_at: rule.created_at,
    });
    expect(await versions(tenant, rule.id)).toEqual([
      { ...fields, modified_at: rule.modified_at, id: expect.any(String), policy_rule_id: rule.id, version: 1, change_summary: 'Created' },
    ]);
    expect(await policyEvents(tenant.tenantId)).toEqual([
      { kind: 'webhook', event: 'policy.updated', data: { policy: rule, change: 'created' } },
    ]);
    expect(stale()).toBeUndefined();
  });

  it('accepts null conditions and TTL from a policies:write key', async () => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    const key = await keyWithScopes(t.app, tenant, ['policies:write']);
    const response = await api.post(
      { apiKey: key.apiKey },
      '/api/v1/policies',
      ruleBody(agent.id, { conditions: null, max_session_ttl: null, priority: -5 }),
    );
    expect(response.statusCode).toBe(201);
    expect(response.json().data).toMatchObject({ conditions: null, max_session_ttl: null, priority: -5 });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ...[
      'agent_id',
      'policy_name',
      'target_integration',
      'operation',
      'resource_scope',
      'data_classification',
      'policy_effect',
      'rationale',
      'priority',
      'conditions',
      'max_session_ttl',
      'modified_by',
      'modified_at',
    ].map((field): [string, Record<string, unknown>, string] => [`a missing ${field}`, { [field]: undefined }, field]),
    ['a rationale under 10 characters', { rationale: 'Too short' }, 'rationale'],
    ['a rationale over 1000 characters', { rationale: 'r'.repeat(1001) }, 'rationale'],
    ['a fractional priority', { priority: 1.5 }, 'priority'],
    ['a priority beyond int32', { priority: 2_147_483_648 }, 'priority'],
    ['a priority given as text', { priority: '10' }, 'priority'],
    ['a zero TTL', { max_session_ttl: 0 }, 'max_session_ttl'],
    ['a TTL beyond int32', { max_session_ttl: 2_147_483_648 }, 'max_session_ttl'],
    ['an unknown classification', { data_classification: 'secret' }, 'data_classification'],
    ['an unknown effect', { policy_effect: 'maybe' }, 'policy_effect'],
    ['a malformed agent_id', { agent_id: 'agent-1' }, 'agent_id'],
    ['conditions that are an array', { conditions: [1] }, 'conditions'],
    ['conditions with an unknown operator', { conditions: { regex: [{ var: 'context.path' }, '.*'] } }, 'conditions'],
    ['conditions reaching for constructor', { conditions: { '==': [{ var: 'context.constructor' }, 1] } }, 'conditions'],
    ['conditions reaching for __proto__', { conditions: { var: '__proto__.polluted' } }, 'conditions'],
    ['conditions with two operators in one object', { conditions: { and: [], or: [] } }, 'conditions'],
    ['an unknown field', { notes: 'x' }, 'notes'],
    ...['is_active', 'policy_version', 'id', 'created_at', 'updated_at'].map((field): [string, Record<string, unknown>, string] => [
      `a server-owned ${field}`,
      { [field]: field === 'is_active' ? true : 1 },
      field,
    ]),
  ])('rejects %s with 400 naming the field', async (_label, overrides, field) => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    const response = await api.post(tenant.admin, '/api/v1/policies', ruleBody(agent.id, overrides));
    expectError(response, 400, 'validation_error');
    expect(fieldsOf(response)).toContain(field);
    expect((await api.get(tenant.admin, '/api/v1/policies')).json().pagination.total).toBe(0);
    expect(await policyEvents(tenant.tenantId)).toEqual([]);
  });

  it('answers 404 when the agent is unknown or another tenant’s', async () => {
    const tenant = await signupTenant(t.app);
    const foreign = await createAgent(t.app, (await signupTenant(t.app)).admin);
    for (const agentId of [foreign.id, randomUUID()]) {
      expectError(await api.post(tenant.admin, '/api/v1/policies', ruleBody(agentId)), 404, 'not_found');
    }
    expect(await policyEvents(tenant.tenantId)).toEqual([]);
  });

  it('requires policies:write or an admin session', async () => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    expectError(await api.post(null, '/api/v1/policies', ruleBody(agent.id)), 401, 'unauthorized');
    for (const scopes of [['policies:read'], ['agents:write']]) {
      expectError(
        await api.post({ apiKey: (await keyWithScopes(t.app, tenant, scopes)).apiKey }, '/api/v1/policies', ruleBody(agent.id)),
        403,
        'forbidden',
      );
    }
    for (const role of ['viewer', 'reviewer'] as const) {
      expectError(await api.post(await sessionWithRole(t.app, tenant, role), '/api/v1/policies', ruleBody(agent.id)), 403, 'forbidden');
    }
  });
});

describe('GET /api/v1/policies', () => {
  it('lists newest first, paginates and filters', async () => {
    const { tenant, agent, rule: refunds } = await setup();
    const second = await createAgent(t.app, tenant.admin);
    const create = async (overrides: Record<string, unknown>) =>
      (await api.post(tenant.admin, '/api/v1/policies', ruleBody(second.id, overrides))).json().data as Json;
    const blockPii = await create({
      policy_name: 'Block PII export',
      policy_effect: 'deny',
      data_classification: 'restricted',
      rationale: 'Exports of personal data are never automated',
    });
    const allowRead = await create({
      policy_name: 'Allow reads',
      policy_effect: 'allow',
      data_classification: 'public',
      rationale: 'Reading public_data is harmless enough',
    });
    await api.delete(tenant.admin, `/api/v1/policies/${allowRead.id}`);
    const inactive: Json = { ...allowRead, is_active: false, updated_at: expect.any(String) };
    await setup();

    const list = async (query = '') => {
      const response = await api.get(tenant.admin, `/api/v1/policies${query}`);
      expect(response.statusCode, response.body).toBe(200);
      return response.json();
    };
    const all = [inactive, blockPii, refunds].sort(newestFirst);
    expect(await list()).toEqual({ data: all, pagination: { total: 3, limit: 20, offset: 0 } });
    expect(await list('?limit=2&offset=1')).toEqual({ data: all.slice(1), pagination: { total: 3, limit: 2, offset: 1 } });
    const ids = async (query: string) => (await list(query)).data.map((r: Json) => r.id).sort();
    expect(await ids(`?agent_id=${agent.id}`)).toEqual([refunds.id]);
    expect(await ids('?effect=deny')).toEqual([blockPii.id]);
    expect(await ids('?data_classification=confidential')).toEqual([refunds.id]);
    expect(await ids('?is_active=false')).toEqual([allowRead.id]);
    expect(await ids('?is_active=true')).toEqual([refunds.id, blockPii.id].sort());
    expect(await ids('?search=pii')).toEqual([blockPii.id]);
    expect(await ids('?search=SECOND PAIR')).toEqual([refunds.id]);
    expect(await ids('?search=c_d')).toEqual([allowRead.id]);
    expect(await ids('?search=%25')).toEqual([]);
    expect(await ids(`?agent_id=${second.id}&effect=allow&is_active=false`)).toEqual([allowRead.id]);
  });

  it.each(['limit=0', 'limit=101', 'offset=-1', 'effect=maybe', 'is_active=yes', 'agent_id=agent-1', 'data_classification=secret'])(
    'rejects the query %s with 400',
    async (query) => {
      const tenant = await signupTenant(t.app);
      const response = await api.get(tenant.admin, `/api/v1/policies?${query}`);
      expectError(response, 400, 'validation_error');
      expect(fieldsOf(response)).toContain(query.split('=')[0]);
    },
  );

  it('admits policies:read keys and every session role', async () => {
    const { tenant } = await setup();
    expect((await api.get(tenant.runtimeKey, '/api/v1/policies')).json().pagination.total).toBe(1);
    expect((await api.get(await sessionWithRole(t.app, tenant, 'viewer'), '/api/v1/policies')).statusCode).toBe(200);
    expectError(await api.get(null, '/api/v1/policies'), 401, 'unauthorized');
    expectError(
      await api.get({ apiKey: (await keyWithScopes(t.app, tenant, ['agents:read'])).apiKey }, '/api/v1/policies'),
      403,
      'forbidden',
    );
  });
});

describe('GET /api/v1/policies/:id', () => {
  it('returns the rule, also once deactivated; 404 across tenants and for bad ids', async () => {
    const { tenant, rule } = await setup();
    expect((await api.get(tenant.runtimeKey, `/api/v1/policies/${rule.id}`)).json()).toEqual({ data: rule });
    await api.delete(tenant.admin, `/api/v1/policies/${rule.id}`);
    expect((await api.get(tenant.admin, `/api/v1/policies/${rule.id}`)).json().data.is_active).toBe(false);
    const stranger = await signupTenant(t.app);
    for (const id of [rule.id, randomUUID(), 'rule-1'])
      expectError(await api.get(stranger.admin, `/api/v1/policies/${id}`), 404, 'not_found');
    expectError(await api.get(null, `/api/v1/policies/${rule.id}`), 401, 'unauthorized');
    expectError(
      await api.get({ apiKey: (await keyWithScopes(t.app, tenant, ['agents:read'])).apiKey }, `/api/v1/policies/${rule.id}`),
      403,
      'forbidden',
    );
  });
});

describe('PATCH /api/v1/policies/:id', () => {
  it('applies the given fields as the next version and records what changed', async () => {
    const { tenant, agent, rule } = await setup();
    const stale = cacheEntryFor(t, agent.id);
    const before = Date.now();
    const response = await api.patch(tenant.admin, `/api/v1/policies/${rule.id}`, {
      rationale: 'A changed rationale text',
      priority: 5,
      operation: 'refund',
    });
    expect(response.statusCode).toBe(200);
    const updated = response.json().data;
    expect(updated).toEqual({
      ...rule,
      rationale: 'A changed rationale text',
      priority: 5,
      policy_version: 2,
      modified_by: 'Ada Admin',
      modified_at: ISO_TIME,
      updated_at: updated.modified_at,
    });
    expect(Date.parse(updated.updated_at)).toBeGreaterThanOrEqual(before - 1);
    expect(stale()).toBeUndefined();

    const history = await versions(tenant, rule.id);
    expect(history.map((v) => [v.version, v.change_summary])).toEqual([
      [2, 'Changed priority, rationale'],
      [1, 'Created'],
    ]);
    expect(history[0]).toEqual({
      id: expect.any(String),
      policy_rule_id: rule.id,
      version: 2,
      policy_name: rule.policy_name,
      operation: 'refund',
      target_integration: rule.target_integration,
      resource_scope: rule.resource_scope,
      data_classification: rule.data_classification,
      policy_effect: rule.policy_effect,
      rationale: 'A changed rationale text',
      priority: 5,
      conditions: rule.conditions,
      max_session_ttl: rule.max_session_ttl,
      modified_by: 'Ada Admin',
      modified_at: updated.modified_at,
      change_summary: 'Changed priority, rationale',
    });
    expect(history[1]).toMatchObject({ version: 1, rationale: rule.rationale, priority: 100, modified_by: 'Olga' });
    expect((await policyEvents(tenant.tenantId)).at(-1)).toEqual({
      kind: 'webhook',
      event: 'policy.updated',
      data: { policy: updated, change: 'updated' },
    });
  });

  it('bumps the version even when no value changes, and compares conditions by content', async () => {
    const { tenant, rule } = await setup({ conditions: { and: [{ '==': [{ var: 'context.a' }, 1] }, { '!': { var: 'context.b' } }] } });
    const same = await api.patch(tenant.admin, `/api/v1/policies/${rule.id}`, {
      conditions: { and: [{ '==': [{ var: 'context.a' }, 1] }, { '!': { var: 'context.b' } }] },
      max_session_ttl: 3600,
    });
    expect(same.json().data.policy_version).toBe(2);
    const key = await keyWithScopes(t.app, tenant, ['policies:write']);
    const cleared = await api.patch({ apiKey: key.apiKey }, `/api/v1/policies/${rule.id}`, {
      conditions: null,
      max_session_ttl: null,
      policy_effect: 'deny',
    });
    expect(cleared.json().data).toMatchObject({
      conditions: null,
      max_session_ttl: null,
      policy_effect: 'deny',
      policy_version: 3,
      modified_by: 'api_key:key policies:write',
    });
    expect((await versions(tenant, rule.id)).map((v) => v.change_summary)).toEqual([
      'Changed conditions, max_session_ttl, policy_effect',
      'No field values changed',
      'Created',
    ]);
  });

  it('gives concurrent updates distinct versions', async () => {
    const { tenant, rule } = await setup();
    const results = await Promise.all(
      [1, 2, 3, 4, 5].map((priority) => api.patch(tenant.admin, `/api/v1/policies/${rule.id}`, { priority })),
    );
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(results.map((r) => r.json().data.policy_version).sort()).toEqual([2, 3, 4, 5, 6]);
    const history = await versions(tenant, rule.id);
    expect(history.map((v) => v.version)).toEqual([6, 5, 4, 3, 2, 1]);
    const final = (await api.get(tenant.admin, `/api/v1/policies/${rule.id}`)).json().data;
    expect(final.priority).toBe(history[0]!.priority);
  });

  it.each([
    ['an empty body', {}, '(body)'],
    ['an unknown field', { note: 'x' }, 'note'],
    ['a field PATCH may not change', { agent_id: randomUUID() }, 'agent_id'],
    ['modified_by, which the server sets', { modified_by: 'Mallory' }, 'modified_by'],
    ['a server-owned is_active', { is_active: true }, 'is_active'],
    ['a server-owned policy_version', { policy_version: 9 }, 'policy_version'],
    ['a short rationale', { rationale: 'short' }, 'rationale'],
    ['an unknown effect', { policy_effect: 'maybe' }, 'policy_effect'],
    ['invalid conditions', { conditions: { exec: ['rm'] } }, 'conditions'],
    ['a constructor path in conditions', { conditions: { var: 'agent.constructor.name' } }, 'conditions'],
  ])('rejects %s with 400 and changes nothing', async (_label, payload, field) => {
    const { tenant, rule } = await setup();
    const response = await api.patch(tenant.admin, `/api/v1/policies/${rule.id}`, payload);
    expectError(response, 400, 'validation_error');
    expect(fieldsOf(response)).toContain(field);
    expect((await api.get(tenant.admin, `/api/v1/policies/${rule.id}`)).json().data).toEqual(rule);
    expect(await versions(tenant, rule.id)).toHaveLength(1);
  });

  it('answers 404 to another tenant and leaves the rule unchanged', async () => {
    const { tenant, rule } = await setup();
    const stranger = await signupTenant(t.app);
    expectError(await api.patch(stranger.admin, `/api/v1/policies/${rule.id}`, { policy_effect: 'allow' }), 404, 'not_found');
    expectError(await api.patch(stranger.admin, '/api/v1/policies/rule-1', { policy_effect: 'allow' }), 404, 'not_found');
    expect((await api.get(tenant.admin, `/api/v1/policies/${rule.id}`)).json().data).toEqual(rule);
    expect(await versions(tenant, rule.id)).toHaveLength(1);
    expect(await policyEvents(stranger.tenantId)).toEqual([]);
  });

  it('requires policies:write or an admin session', async () => {
    const { tenant, rule } = await setup();
    const url = `/api/v1/policies/${rule.id}`;
    expectError(await api.patch(null, url, { priority: 1 }), 401, 'unauthorized');
    expectError(await api.patch(tenant.runtimeKey, url, { priority: 1 }), 403, 'forbidden');
    expectError(await api.patch(await sessionWithRole(t.app, tenant, 'viewer'), url, { priority: 1 }), 403, 'forbidden');
    expect((await api.get(tenant.admin, url)).json().data).toEqual(rule);
  });
});

describe('DELETE /api/v1/policies/:id', () => {
  it('deactivates once, keeps the version, and announces only the first time', async () => {
    const { tenant, agent, rule } = await setup();
    const stale = cacheEntryFor(t, agent.id);
    const first = await api.delete(tenant.admin, `/api/v1/policies/${rule.id}`);
    expect(first.statusCode).toBe(200);
    const deleted = first.json().data;
    expect(deleted).toEqual({ ...rule, is_active: false, updated_at: ISO_TIME });
    expect(stale()).toBeUndefined();
    const second = await api.delete(tenant.admin, `/api/v1/policies/${rule.id}`);
    expect(second.statusCode).toBe(200);
    expect(second.json()).toEqual({ data: deleted });
    expect((await policyEvents(tenant.tenantId)).map((e) => (e.data as { change: string }).change)).toEqual(['created', 'deleted']);
    expect((await policyEvents(tenant.tenantId))[1]!.data).toEqual({ policy: deleted, change: 'deleted' });
    expect(await versions(tenant, rule.id)).toHaveLength(1);
  });

  it('answers 404 across tenants and requires policies:write or an admin session', async () => {
    const { tenant, rule } = await setup();
    const url = `/api/v1/policies/${rule.id}`;
    const stranger = await signupTenant(t.app);
    expectError(await api.delete(stranger.admin, url), 404, 'not_found');
    expectError(await api.delete(tenant.admin, '/api/v1/policies/rule-1'), 404, 'not_found');
    expectError(await api.delete(tenant.admin, `/api/v1/policies/${randomUUID()}`), 404, 'not_found');
    expectError(await api.delete(null, url), 401, 'unauthorized');
    expectError(await api.delete(tenant.runtimeKey, url), 403, 'forbidden');
    expectError(await api.delete(await sessionWithRole(t.app, tenant, 'viewer'), url), 403, 'forbidden');
    expect((await api.get(tenant.admin, url)).json().data.is_active).toBe(true);
  });
});

describe('GET /api/v1/policies/:id/versions', () => {
  it('pages through the records newest first', async () => {
    const { tenant, rule } = await setup();
    for (const priority of [1, 2, 3]) await api.patch(tenant.admin, `/api/v1/policies/${rule.id}`, { priority });
    const page = (
      await api.get(await sessionWithRole(t.app, tenant, 'viewer'), `/api/v1/policies/${rule.id}/versions?limit=2&offset=1`)
    ).json();
    expect(page.pagination).toEqual({ total: 4, limit: 2, offset: 1 });
    expect(page.data.map((v: Json) => [v.version, v.priority])).toEqual([
      [3, 2],
      [2, 1],
    ]);
    expect((await api.get(tenant.runtimeKey, `/api/v1/policies/${rule.id}/versions`)).json().pagination).toEqual({
      total: 4,
      limit: 20,
      offset: 0,
    });
  });

  it('answers 404 across tenants, 400 for bad paging, and requires policies:read', async () => {
    const { tenant, rule } = await setup();
    const url = `/api/v1/policies/${rule.id}/versions`;
    const stranger = await signupTenant(t.app);
    for (const id of [rule.id, randomUUID(), 'rule-1'])
      expectError(await api.get(stranger.admin, `/api/v1/policies/${id}/versions`), 404, 'not_found');
    for (const query of ['limit=0', 'limit=101', 'offset=-1'])
      expectError(await api.get(tenant.admin, `${url}?${query}`), 400, 'validation_error');
    expectError(await api.get(null, url), 401, 'unauthorized');
    expectError(await api.get({ apiKey: (await keyWithScopes(t.app, tenant, ['agents:read'])).apiKey }, url), 403, 'forbidden');
  });
});
