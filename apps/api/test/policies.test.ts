import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  cacheEntryFor,
  type ErrorBody,
  expectErrorBody,
  expectInvalidQuery,
  FORBIDDEN,
  invalidBody,
  ISO_TIME,
  MALFORMED_ID,
  newestFirst,
  notFound,
  nullableFailure,
  ONE_OF,
  UNAUTHENTICATED,
} from './assertions.js';
import { client } from './client.js';
import { createAgent } from './fixtures.js';
import { useTestApp, keyWithScopes, sessionWithRole, signupTenant } from './harness.js';
import { invalidConditions, type Json, policyEvents, ruleBody, setup, versions } from './policy-rules.js';

const t = useTestApp();
const api = client(t);

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
      approvals_required: 1,
      mode: 'enforce',
      modified_at: '2025-06-02T08:00:00.000Z',
      is_active: true,
      policy_version: 1,
      created_at: ISO_TIME,
      updated_at: rule.created_at,
    });
    expect(await versions(api, tenant, rule.id)).toEqual([
      {
        ...fields,
        approvals_required: 1,
        mode: 'enforce',
        modified_at: rule.modified_at,
        id: expect.any(String),
        policy_rule_id: rule.id,
        version: 1,
        change_summary: 'Created',
      },
    ]);
    expect(await policyEvents(t, tenant.tenantId)).toEqual([
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

  it.each<[string, Record<string, unknown>, ErrorBody]>([
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
    ].map((field): [string, Record<string, unknown>, ErrorBody] => [
      `a missing ${field}`,
      { [field]: undefined },
      invalidBody([[field, 'is required']]),
    ]),
    ['a rationale under 10 characters', { rationale: 'Too short' }, invalidBody([['rationale', 'must NOT have fewer than 10 characters']])],
    [
      'a rationale over 1000 characters',
      { rationale: 'r'.repeat(1001) },
      invalidBody([['rationale', 'must NOT have more than 1000 characters']]),
    ],
    ['a fractional priority', { priority: 1.5 }, invalidBody([['priority', 'must be integer']])],
    ['a priority beyond int32', { priority: 2_147_483_648 }, invalidBody([['priority', 'must be <= 2147483647']])],
    ['a priority given as text', { priority: '10' }, invalidBody([['priority', 'must be integer']])],
    ['a zero TTL', { max_session_ttl: 0 }, invalidBody(nullableFailure('max_session_ttl', 'must be >= 1'))],
    ['a TTL beyond int32', { max_session_ttl: 2_147_483_648 }, invalidBody(nullableFailure('max_session_ttl', 'must be <= 2147483647'))],
    ['an unknown classification', { data_classification: 'secret' }, invalidBody([['data_classification', ONE_OF]])],
    ['an unknown effect', { policy_effect: 'maybe' }, invalidBody([['policy_effect', ONE_OF]])],
    ['a malformed agent_id', { agent_id: 'agent-1' }, invalidBody([['agent_id', 'must match format "uuid"']])],
    ['conditions that are an array', { conditions: [1] }, invalidBody(nullableFailure('conditions', 'must be object'))],
    [
      'conditions with an unknown operator',
      { conditions: { regex: [{ var: 'context.path' }, '.*'] } },
      invalidConditions('conditions: unknown operator "regex"'),
    ],
    [
      'conditions reaching for constructor',
      { conditions: { '==': [{ var: 'context.constructor' }, 1] } },
      invalidConditions('conditions.==[0].var: the path may not name __proto__, constructor or prototype'),
    ],
    [
      'conditions reaching for __proto__',
      { conditions: { var: '__proto__.polluted' } },
      invalidConditions('conditions.var: the path may not name __proto__, constructor or prototype'),
    ],
    [
      'conditions with two operators in one object',
      { conditions: { and: [], or: [] } },
      invalidConditions('conditions: an object must hold exactly one operator'),
    ],
    ['an unknown field', { notes: 'x' }, invalidBody([['notes', 'is not allowed']])],
    ...['is_active', 'policy_version', 'id', 'created_at', 'updated_at'].map((field): [string, Record<string, unknown>, ErrorBody] => [
      `a server-owned ${field}`,
      { [field]: field === 'is_active' ? true : 1 },
      invalidBody([[field, 'is not allowed']]),
    ]),
  ])('rejects %s with 400 naming the field', async (_label, overrides, body) => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    const response = await api.post(tenant.admin, '/api/v1/policies', ruleBody(agent.id, overrides));
    expectErrorBody(response, 400, body);
    expect((await api.get(tenant.admin, '/api/v1/policies')).json().pagination.total).toBe(0);
    expect(await policyEvents(t, tenant.tenantId)).toEqual([]);
  });

  it('answers 404 when the agent is unknown or another tenant’s', async () => {
    const tenant = await signupTenant(t.app);
    const foreign = await createAgent(t.app, (await signupTenant(t.app)).admin);
    for (const agentId of [foreign.id, randomUUID()]) {
      expectErrorBody(await api.post(tenant.admin, '/api/v1/policies', ruleBody(agentId)), 404, notFound('Agent'));
    }
    expect(await policyEvents(t, tenant.tenantId)).toEqual([]);
  });

  it('requires policies:write or an admin session', async () => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    expectErrorBody(await api.post(null, '/api/v1/policies', ruleBody(agent.id)), 401, UNAUTHENTICATED);
    for (const scopes of [['policies:read'], ['agents:write']]) {
      expectErrorBody(
        await api.post({ apiKey: (await keyWithScopes(t.app, tenant, scopes)).apiKey }, '/api/v1/policies', ruleBody(agent.id)),
        403,
        FORBIDDEN,
      );
    }
    for (const role of ['viewer', 'reviewer'] as const) {
      expectErrorBody(await api.post(await sessionWithRole(t.app, tenant, role), '/api/v1/policies', ruleBody(agent.id)), 403, FORBIDDEN);
    }
  });
});

describe('GET /api/v1/policies', () => {
  it('lists newest first, paginates and filters', async () => {
    const { tenant, agent, rule: refunds } = await setup(t, api);
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
    await setup(t, api);

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

  it.each([
    ['limit=0', 'must be >= 1'],
    ['limit=101', 'must be <= 100'],
    ['offset=-1', 'must be >= 0'],
    ['effect=maybe', ONE_OF],
    ['is_active=yes', 'must be boolean'],
    ['agent_id=agent-1', 'must match format "uuid"'],
    ['data_classification=secret', ONE_OF],
  ])('rejects the query %s with 400', async (query, problem) => {
    const tenant = await signupTenant(t.app);
    const response = await api.get(tenant.admin, `/api/v1/policies?${query}`);
    expectInvalidQuery(response, [[query.split('=')[0]!, problem]]);
  });

  it('admits policies:read keys and every session role', async () => {
    const { tenant } = await setup(t, api);
    expect((await api.get(tenant.runtimeKey, '/api/v1/policies')).json().pagination.total).toBe(1);
    expect((await api.get(await sessionWithRole(t.app, tenant, 'viewer'), '/api/v1/policies')).statusCode).toBe(200);
    expectErrorBody(await api.get(null, '/api/v1/policies'), 401, UNAUTHENTICATED);
    expectErrorBody(
      await api.get({ apiKey: (await keyWithScopes(t.app, tenant, ['agents:read'])).apiKey }, '/api/v1/policies'),
      403,
      FORBIDDEN,
    );
  });
});

describe('GET /api/v1/policies/:id', () => {
  it('returns the rule, also once deactivated; 404 across tenants and for bad ids', async () => {
    const { tenant, rule } = await setup(t, api);
    expect((await api.get(tenant.runtimeKey, `/api/v1/policies/${rule.id}`)).json()).toEqual({ data: rule });
    await api.delete(tenant.admin, `/api/v1/policies/${rule.id}`);
    expect((await api.get(tenant.admin, `/api/v1/policies/${rule.id}`)).json().data.is_active).toBe(false);
    const stranger = await signupTenant(t.app);
    for (const [id, body] of [
      [rule.id, notFound('Policy rule')],
      [randomUUID(), notFound('Policy rule')],
      ['rule-1', MALFORMED_ID],
    ] as const)
      expectErrorBody(await api.get(stranger.admin, `/api/v1/policies/${id}`), 404, body);
    expectErrorBody(await api.get(null, `/api/v1/policies/${rule.id}`), 401, UNAUTHENTICATED);
    expectErrorBody(
      await api.get({ apiKey: (await keyWithScopes(t.app, tenant, ['agents:read'])).apiKey }, `/api/v1/policies/${rule.id}`),
      403,
      FORBIDDEN,
    );
  });
});
