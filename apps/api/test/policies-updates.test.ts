import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  cacheEntryFor,
  expectErrorBody,
  expectInvalidQuery,
  FORBIDDEN,
  invalidBody,
  MALFORMED_ID,
  notFound,
  stopUntilTestEnds,
  UNAUTHENTICATED,
} from './assertions.js';
import { client } from './client.js';
import { useTestApp, keyWithScopes, sessionWithRole, signupTenant, TestClock } from './harness.js';
import { invalidConditions, type Json, policyEvents, setup, versions } from './policy-rules.js';

const RULE_NOT_FOUND = notFound('Policy rule');

const clock = new TestClock();
const t = useTestApp({ clock });
const api = client(t);

describe('PATCH /api/v1/policies/:id', () => {
  it('applies the given fields as the next version and records what changed', async () => {
    const { tenant, agent, rule } = await setup(t, api);
    const stale = cacheEntryFor(t, agent.id);
    const at = stopUntilTestEnds(clock);
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
      modified_at: at.toISOString(),
      updated_at: at.toISOString(),
    });
    expect(stale()).toBeUndefined();

    const history = await versions(api, tenant, rule.id);
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
      approvals_required: 1,
      escalate_after_seconds: rule.escalate_after_seconds,
      mode: 'enforce',
      modified_by: 'Ada Admin',
      modified_at: updated.modified_at,
      change_summary: 'Changed priority, rationale',
    });
    expect(history[1]).toMatchObject({ version: 1, rationale: rule.rationale, priority: 100, modified_by: 'Olga' });
    expect((await policyEvents(t, tenant.tenantId)).at(-1)).toEqual({
      kind: 'webhook',
      event: 'policy.updated',
      data: { policy: updated, change: 'updated' },
    });
  });

  it('bumps the version even when no value changes, and compares conditions by content', async () => {
    const { tenant, rule } = await setup(t, api, {
      conditions: { and: [{ '==': [{ var: 'context.a' }, 1] }, { '!': { var: 'context.b' } }] },
    });
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
    expect((await versions(api, tenant, rule.id)).map((v) => v.change_summary)).toEqual([
      'Changed conditions, max_session_ttl, policy_effect',
      'No field values changed',
      'Created',
    ]);
  });

  it('gives concurrent updates distinct versions', async () => {
    const { tenant, rule } = await setup(t, api);
    const results = await Promise.all(
      [1, 2, 3, 4, 5].map((priority) => api.patch(tenant.admin, `/api/v1/policies/${rule.id}`, { priority })),
    );
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(results.map((r) => r.json().data.policy_version).sort()).toEqual([2, 3, 4, 5, 6]);
    const history = await versions(api, tenant, rule.id);
    expect(history.map((v) => v.version)).toEqual([6, 5, 4, 3, 2, 1]);
    const final = (await api.get(tenant.admin, `/api/v1/policies/${rule.id}`)).json().data;
    expect(final.priority).toBe(history[0]!.priority);
  });

  it.each([
    ['an empty body', {}, invalidBody([['(body)', 'must NOT have fewer than 1 properties']])],
    ['an unknown field', { note: 'x' }, invalidBody([['note', 'is not allowed']])],
    ['a field PATCH may not change', { agent_id: randomUUID() }, invalidBody([['agent_id', 'is not allowed']])],
    ['modified_by, which the server sets', { modified_by: 'Mallory' }, invalidBody([['modified_by', 'is not allowed']])],
    ['a server-owned is_active', { is_active: true }, invalidBody([['is_active', 'is not allowed']])],
    ['a server-owned policy_version', { policy_version: 9 }, invalidBody([['policy_version', 'is not allowed']])],
    ['a short rationale', { rationale: 'short' }, invalidBody([['rationale', 'must NOT have fewer than 10 characters']])],
    ['an unknown effect', { policy_effect: 'maybe' }, invalidBody([['policy_effect', 'must be equal to one of the allowed values']])],
    ['invalid conditions', { conditions: { exec: ['rm'] } }, invalidConditions('conditions: unknown operator "exec"')],
    [
      'a constructor path in conditions',
      { conditions: { var: 'agent.constructor.name' } },
      invalidConditions('conditions.var: the path may not name __proto__, constructor or prototype'),
    ],
  ])('rejects %s with 400 and changes nothing', async (_label, payload, body) => {
    const { tenant, rule } = await setup(t, api);
    const response = await api.patch(tenant.admin, `/api/v1/policies/${rule.id}`, payload);
    expectErrorBody(response, 400, body);
    expect((await api.get(tenant.admin, `/api/v1/policies/${rule.id}`)).json().data).toEqual(rule);
    expect(await versions(api, tenant, rule.id)).toHaveLength(1);
  });

  it('answers 404 to another tenant and leaves the rule unchanged', async () => {
    const { tenant, rule } = await setup(t, api);
    const stranger = await signupTenant(t.app);
    expectErrorBody(await api.patch(stranger.admin, `/api/v1/policies/${rule.id}`, { policy_effect: 'allow' }), 404, RULE_NOT_FOUND);
    expectErrorBody(await api.patch(stranger.admin, '/api/v1/policies/rule-1', { policy_effect: 'allow' }), 404, MALFORMED_ID);
    expect((await api.get(tenant.admin, `/api/v1/policies/${rule.id}`)).json().data).toEqual(rule);
    expect(await versions(api, tenant, rule.id)).toHaveLength(1);
    expect(await policyEvents(t, stranger.tenantId)).toEqual([]);
  });

  it('requires policies:write or an admin session', async () => {
    const { tenant, rule } = await setup(t, api);
    const url = `/api/v1/policies/${rule.id}`;
    expectErrorBody(await api.patch(null, url, { priority: 1 }), 401, UNAUTHENTICATED);
    expectErrorBody(await api.patch(tenant.runtimeKey, url, { priority: 1 }), 403, FORBIDDEN);
    expectErrorBody(await api.patch(await sessionWithRole(t.app, tenant, 'viewer'), url, { priority: 1 }), 403, FORBIDDEN);
    expect((await api.get(tenant.admin, url)).json().data).toEqual(rule);
  });
});

describe('DELETE /api/v1/policies/:id', () => {
  it('deactivates once, keeps the version, and announces only the first time', async () => {
    const { tenant, agent, rule } = await setup(t, api);
    const stale = cacheEntryFor(t, agent.id);
    const at = stopUntilTestEnds(clock);
    const first = await api.delete(tenant.admin, `/api/v1/policies/${rule.id}`);
    expect(first.statusCode).toBe(200);
    const deleted = first.json().data;
    expect(deleted).toEqual({ ...rule, is_active: false, updated_at: at.toISOString() });
    expect(stale()).toBeUndefined();
    const second = await api.delete(tenant.admin, `/api/v1/policies/${rule.id}`);
    expect(second.statusCode).toBe(200);
    expect(second.json()).toEqual({ data: deleted });
    expect((await policyEvents(t, tenant.tenantId)).map((e) => (e.data as { change: string }).change)).toEqual(['created', 'deleted']);
    expect((await policyEvents(t, tenant.tenantId))[1]!.data).toEqual({ policy: deleted, change: 'deleted' });
    expect(await versions(api, tenant, rule.id)).toHaveLength(1);
  });

  it('answers 404 across tenants and requires policies:write or an admin session', async () => {
    const { tenant, rule } = await setup(t, api);
    const url = `/api/v1/policies/${rule.id}`;
    const stranger = await signupTenant(t.app);
    expectErrorBody(await api.delete(stranger.admin, url), 404, RULE_NOT_FOUND);
    expectErrorBody(await api.delete(tenant.admin, '/api/v1/policies/rule-1'), 404, MALFORMED_ID);
    expectErrorBody(await api.delete(tenant.admin, `/api/v1/policies/${randomUUID()}`), 404, RULE_NOT_FOUND);
    expectErrorBody(await api.delete(null, url), 401, UNAUTHENTICATED);
    expectErrorBody(await api.delete(tenant.runtimeKey, url), 403, FORBIDDEN);
    expectErrorBody(await api.delete(await sessionWithRole(t.app, tenant, 'viewer'), url), 403, FORBIDDEN);
    expect((await api.get(tenant.admin, url)).json().data.is_active).toBe(true);
  });
});

describe('GET /api/v1/policies/:id/versions', () => {
  it('pages through the records newest first', async () => {
    const { tenant, rule } = await setup(t, api);
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
    const { tenant, rule } = await setup(t, api);
    const url = `/api/v1/policies/${rule.id}/versions`;
    const stranger = await signupTenant(t.app);
    for (const [id, body] of [
      [rule.id, RULE_NOT_FOUND],
      [randomUUID(), RULE_NOT_FOUND],
      ['rule-1', MALFORMED_ID],
    ] as const)
      expectErrorBody(await api.get(stranger.admin, `/api/v1/policies/${id}/versions`), 404, body);
    for (const [query, problem] of [
      ['limit=0', 'must be >= 1'],
      ['limit=101', 'must be <= 100'],
      ['offset=-1', 'must be >= 0'],
    ] as const)
      expectInvalidQuery(await api.get(tenant.admin, `${url}?${query}`), [[query.split('=')[0]!, problem]]);
    expectErrorBody(await api.get(null, url), 401, UNAUTHENTICATED);
    expectErrorBody(await api.get({ apiKey: (await keyWithScopes(t.app, tenant, ['agents:read'])).apiKey }, url), 403, FORBIDDEN);
  });
});
