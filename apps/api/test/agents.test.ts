import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { approvalRequests, traces } from '@agov/db';
import { actionDigest } from '@agov/domain';
import {
  expectErrorBody,
  expectInvalidBody,
  expectInvalidQuery,
  FORBIDDEN,
  ISO_TIME,
  MALFORMED_ID,
  newestFirst,
  notFound,
  UNAUTHENTICATED,
} from './assertions.js';
import { client } from './client.js';
import { agentBody, createAgent } from './fixtures.js';
import { useTestApp, keyWithScopes, sessionWithRole, signupTenant } from './harness.js';

const t = useTestApp();
const api = client(t);

/** The agent JSON the API returns for `body`. */
/** The spec's fields as sent, the server's, and the throttle's defaults (CONTRACT, "Policy lifecycle decisions"). */
const agentJson = (body: Record<string, unknown>) => ({
  ...body,
  id: expect.any(String),
  modified_at: new Date(body.modified_at as string).toISOString(),
  lifecycle_state: 'active',
  max_requests_per_minute: null,
  max_identical_requests_per_minute: null,
  throttle_effect: 'deny',
  created_at: ISO_TIME,
});

describe('POST /api/v1/agents', () => {
  it('creates an active agent and returns exactly the spec fields, and the throttle off', async () => {
    const tenant = await signupTenant(t.app);
    // Nested metadata, a credential_config object and a modified_at without milliseconds all round-trip.
    const body = agentBody({
      credential_config: { vault_path: 'secret/erp', rotation_days: 30 },
      metadata: { cost_center: 'FIN-01', tags: ['billing'], nested: { level: { deep: true } } },
      modified_at: '2025-06-01T12:00:00Z',
    });
    const response = await api.post(tenant.admin, '/api/v1/agents', body);
    expect(response.statusCode).toBe(201);
    expect(response.json()).toEqual({ data: agentJson(body) });
    expect(response.json().data.modified_at).toBe('2025-06-01T12:00:00.000Z');
  });

  it('accepts null free-form fields, a date-time review date and no integrations, with an agents:write key', async () => {
    const tenant = await signupTenant(t.app);
    const key = await keyWithScopes(t.app, tenant, ['agents:write']);
    const body = agentBody({
      credential_config: null,
      metadata: null,
      authorized_integrations: [],
      next_review_date: '2026-12-31T09:30:00Z',
    });
    const response = await api.post({ apiKey: key.apiKey }, '/api/v1/agents', body);
    expect(response.statusCode).toBe(201);
    expect(response.json().data).toEqual(agentJson(body));
  });

  it.each([
    ['a missing field', agentBody({ name: undefined }), [['name', 'is required']]],
    ['an empty name', agentBody({ name: '' }), [['name', 'must NOT have fewer than 1 characters']]],
    ['a name over 200 characters', agentBody({ name: 'n'.repeat(201) }), [['name', 'must NOT have more than 200 characters']]],
    [
      'a description over 2000 characters',
      agentBody({ description: 'd'.repeat(2001) }),
      [['description', 'must NOT have more than 2000 characters']],
    ],
    ['an unknown environment', agentBody({ environment: 'staging' }), [['environment', 'must be equal to one of the allowed values']]],
    [
      'an unknown authority model',
      agentBody({ authority_model: 'root' }),
      [['authority_model', 'must be equal to one of the allowed values']],
    ],
    [
      'an unknown identity mode',
      agentBody({ identity_mode: 'anonymous' }),
      [['identity_mode', 'must be equal to one of the allowed values']],
    ],
    [
      'an unknown delegation model',
      agentBody({ delegation_model: 'anyone' }),
      [['delegation_model', 'must be equal to one of the allowed values']],
    ],
    [
      'an unknown autonomy tier',
      agentBody({ autonomy_tier: 'extreme' }),
      [['autonomy_tier', 'must be equal to one of the allowed values']],
    ],
    ['integrations that are not an array', agentBody({ authorized_integrations: {} }), [['authorized_integrations', 'must be array']]],
    [
      'an integration with a bad classification',
      agentBody({ authorized_integrations: [{ name: 'x', resource_scope: '*', data_classification: 'secret', allowed_operations: [] }] }),
      [['authorized_integrations.0.data_classification', 'must be equal to one of the allowed values']],
    ],
    [
      'an integration with an extra field',
      agentBody({
        authorized_integrations: [{ name: 'x', resource_scope: '*', data_classification: 'public', allowed_operations: [], admin: true }],
      }),
      [['authorized_integrations.0.admin', 'is not allowed']],
    ],
    [
      'an integration without operations',
      agentBody({ authorized_integrations: [{ name: 'x', resource_scope: '*', data_classification: 'public' }] }),
      [['authorized_integrations.0.allowed_operations', 'is required']],
    ],
    [
      'over 100 integrations',
      agentBody({
        authorized_integrations: Array.from({ length: 101 }, () => ({
          name: 'x',
          resource_scope: '*',
          data_classification: 'public',
          allowed_operations: [],
        })),
      }),
      [['authorized_integrations', 'must NOT have more than 100 items']],
    ],
    [
      'metadata that is an array',
      agentBody({ metadata: ['a'] }),
      [
        ['metadata', 'must be object'],
        ['metadata', 'must be null'],
        ['metadata', 'must match a schema in anyOf'],
      ],
    ],
    [
      'credential_config that is text',
      agentBody({ credential_config: 'secret' }),
      [
        ['credential_config', 'must be object'],
        ['credential_config', 'must be null'],
        ['credential_config', 'must match a schema in anyOf'],
      ],
    ],
    ['a missing credential_config', agentBody({ credential_config: undefined }), [['credential_config', 'is required']]],
    [
      'a review date that is not a date',
      agentBody({ next_review_date: 'next year' }),
      [
        ['next_review_date', 'must match format "date"'],
        ['next_review_date', 'must match format "date-time"'],
        ['next_review_date', 'must match a schema in anyOf'],
      ],
    ],
    ['modified_at without a time', agentBody({ modified_at: '2025-06-01' }), [['modified_at', 'must match format "date-time"']]],
    ['a number where text belongs', agentBody({ team: 42 }), [['team', 'must be string']]],
    ['an unknown field', agentBody({ owner_email: 'o@example.test' }), [['owner_email', 'is not allowed']]],
    ['a server-owned lifecycle_state', agentBody({ lifecycle_state: 'active' }), [['lifecycle_state', 'is not allowed']]],
    ['a server-owned id', agentBody({ id: randomUUID() }), [['id', 'is not allowed']]],
    ['a server-owned tenant_id', agentBody({ tenant_id: randomUUID() }), [['tenant_id', 'is not allowed']]],
    ['a server-owned created_at', agentBody({ created_at: '2025-01-01T00:00:00Z' }), [['created_at', 'is not allowed']]],
  ] as const)('rejects %s with 400 naming the field', async (_label, payload, problems) => {
    const tenant = await signupTenant(t.app);
    const response = await api.post(tenant.admin, '/api/v1/agents', payload);
    expectInvalidBody(response, problems);
    expect((await api.get(tenant.admin, '/api/v1/agents')).json().pagination.total).toBe(0);
  });

  it('refuses metadata nested deeper than 32 levels', async () => {
    const tenant = await signupTenant(t.app);
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let level = 0; level < 33; level += 1) deep = { deep };
    const response = await api.post(tenant.admin, '/api/v1/agents', agentBody({ metadata: deep }));
    expectInvalidBody(response, [
      ['metadata', 'must be at most 32 levels deep'],
      ['metadata', 'must be null'],
      ['metadata', 'must match a schema in anyOf'],
    ]);
  });

  it('requires agents:write or an admin session', async () => {
    const tenant = await signupTenant(t.app);
    expectErrorBody(await api.post(null, '/api/v1/agents', agentBody()), 401, UNAUTHENTICATED);
    for (const scopes of [['agents:read'], ['agents:lifecycle'], ['policies:write']]) {
      const key = await keyWithScopes(t.app, tenant, scopes);
      expectErrorBody(await api.post({ apiKey: key.apiKey }, '/api/v1/agents', agentBody()), 403, FORBIDDEN);
    }
    for (const role of ['viewer', 'reviewer'] as const) {
      expectErrorBody(await api.post(await sessionWithRole(t.app, tenant, role), '/api/v1/agents', agentBody()), 403, FORBIDDEN);
    }
    expect((await api.get(tenant.admin, '/api/v1/agents')).json().pagination.total).toBe(0);
  });
});

describe('GET /api/v1/agents', () => {
  it('lists the tenant’s agents newest first with pagination', async () => {
    const tenant = await signupTenant(t.app);
    const other = await signupTenant(t.app);
    await createAgent(t.app, other.admin, { name: 'Foreign' });
    const created = [];
    for (const name of ['A', 'B', 'C']) created.push(await createAgent(t.app, tenant.admin, { name }));
    const ordered = [...created].sort(newestFirst);

    const all = await api.get(tenant.admin, '/api/v1/agents');
    expect(all.statusCode).toBe(200);
    expect(all.json()).toEqual({ data: ordered, pagination: { total: 3, limit: 20, offset: 0 } });

    const page = await api.get(tenant.admin, '/api/v1/agents?limit=1&offset=1');
    expect(page.json()).toEqual({ data: [ordered[1]], pagination: { total: 3, limit: 1, offset: 1 } });
  });

  it('filters by environment, lifecycle state, authority model, autonomy tier and search', async () => {
    const tenant = await signupTenant(t.app);
    const prod = await createAgent(t.app, tenant.admin, {
      name: 'Payroll runner',
      environment: 'prod',
      authority_model: 'self',
      autonomy_tier: 'high',
    });
    const dev = await createAgent(t.app, tenant.admin, {
      name: 'Sandbox',
      description: 'Tries 100% of PAYROLL_RUN cases',
      environment: 'dev',
      autonomy_tier: 'low',
    });
    const other = await createAgent(t.app, tenant.admin, {
      name: 'Mailer',
      description: 'Sends mail',
      environment: 'test',
      authority_model: 'hybrid',
    });
    await api.post(tenant.admin, `/api/v1/agents/${other.id}/suspend`);

    const ids = async (query: string) => {
      const response = await api.get(tenant.admin, `/api/v1/agents?${query}`);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().pagination.total).toBe(response.json().data.length);
      return response
        .json()
        .data.map((agent: { id: string }) => agent.id)
        .sort();
    };
    expect(await ids('environment=dev')).toEqual([dev.id]);
    expect(await ids('lifecycle_state=suspended')).toEqual([other.id]);
    expect(await ids('lifecycle_state=active')).toEqual([prod.id, dev.id].sort());
    expect(await ids('authority_model=hybrid')).toEqual([other.id]);
    expect(await ids('autonomy_tier=high')).toEqual([prod.id]);
    expect(await ids('search=payroll')).toEqual([prod.id, dev.id].sort());
    expect(await ids('search=SEND')).toEqual([other.id]);
    expect(await ids('search=%25')).toEqual([dev.id]);
    expect(await ids('search=l_r')).toEqual([dev.id]);
    expect(await ids('search=%25%25')).toEqual([]);
    expect(await ids('search=%5C')).toEqual([]);
    expect(await ids('environment=prod&autonomy_tier=low')).toEqual([]);
  });

  it.each([
    ['limit=0', 'must be >= 1'],
    ['limit=101', 'must be <= 100'],
    ['offset=-1', 'must be >= 0'],
    ['limit=abc', 'must be integer'],
    ['environment=staging', 'must be equal to one of the allowed values'],
    ['lifecycle_state=deleted', 'must be equal to one of the allowed values'],
    ['authority_model=x', 'must be equal to one of the allowed values'],
    ['autonomy_tier=x', 'must be equal to one of the allowed values'],
  ])('rejects the query %s with 400', async (query, problem) => {
    const tenant = await signupTenant(t.app);
    const response = await api.get(tenant.admin, `/api/v1/agents?${query}`);
    expectInvalidQuery(response, [[query.split('=')[0]!, problem]]);
  });

  it('admits agents:read keys and every session role, nothing else', async () => {
    const tenant = await signupTenant(t.app);
    await createAgent(t.app, tenant.admin);
    const reader = await keyWithScopes(t.app, tenant, ['agents:read']);
    expect((await api.get({ apiKey: reader.apiKey }, '/api/v1/agents')).json().pagination.total).toBe(1);
    expect((await api.get(await sessionWithRole(t.app, tenant, 'viewer'), '/api/v1/agents')).statusCode).toBe(200);
    expectErrorBody(await api.get(null, '/api/v1/agents'), 401, UNAUTHENTICATED);
    expectErrorBody(await api.get(tenant.runtimeKey, '/api/v1/agents'), 403, FORBIDDEN);
  });
});

describe('GET /api/v1/agents/:id', () => {
  const insertTrace = async (tenantId: string, agentId: string, startedAt: Date, decision: 'allow' | 'approval_required' | 'deny') => {
    const [row] = await t.runtime.database.db
      .insert(traces)
      .values({
        tenantId,
        agentId,
        agentName: 'Invoice Bot',
        authorityModel: 'delegated',
        requestedOperation: `op-${startedAt.getTime()}`,
        targetIntegration: 'erp',
        resourceScope: 'invoices/1',
        dataClassification: 'internal',
        decision,
        finalOutcome: decision === 'deny' ? 'denied' : 'in_progress',
        eventCount: 0,
        lastEventHash: '',
        startedAt,
        completedAt: decision === 'deny' ? startedAt : null,
      })
      .returning();
    return row!;
  };

  it('returns the agent with zeroed statistics when nothing happened yet', async () => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    const response = await api.get(tenant.admin, `/api/v1/agents/${agent.id}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      data: {
        ...agent,
        stats: {
          recent_traces: [],
          approval_counts: { pending: 0, approved: 0, denied: 0, expired: 0 },
          decisions_last_24h: { allow: 0, approval_required: 0, deny: 0 },
          trace_count: 0,
          budgets: [],
        },
      },
    });
  });

  it('counts traces, decisions of the last 24 hours and approvals of this agent only', async () => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    const sibling = await createAgent(t.app, tenant.admin, { name: 'Sibling' });
    const hour = 3_600_000;
    const now = Date.now();
    const decisions = ['allow', 'deny', 'approval_required', 'allow', 'deny', 'allow'] as const;
    const rows = [];
    for (const [index, decision] of decisions.entries())
      rows.push(await insertTrace(tenant.tenantId, agent.id, new Date(now - index * hour), decision));
    rows.push(await insertTrace(tenant.tenantId, agent.id, new Date(now - 25 * hour), 'deny'));
    await insertTrace(tenant.tenantId, sibling.id, new Date(now), 'allow');
    for (const status of ['pending', 'pending', 'approved', 'expired'] as const) {
      await t.runtime.database.db.insert(approvalRequests).values({
        tenantId: tenant.tenantId,
        traceId: rows[0]!.id,
        agentId: agent.id,
        requestedOperation: 'op',
        targetIntegration: 'erp',
        resourceScope: 'invoices/1',
        dataClassification: 'internal',
        riskClassification: 'medium',
        authorityModel: 'delegated',
        delegatedFrom: 'Olga Owner',
        flagReason: 'needs review',
        status,
        contextSnapshot: {},
        actionDigest: actionDigest({
          agent_id: agent.id,
          operation: 'op',
          target_integration: 'erp',
          resource_scope: 'invoices/1',
          data_classification: 'internal',
        }),
        expiresAt: new Date(now + hour),
        requestedAt: new Date(now),
      });
    }

    const { data } = (await api.get(tenant.admin, `/api/v1/agents/${agent.id}`)).json();
    expect(data.stats).toEqual({
      recent_traces: rows.slice(0, 5).map((row) => ({
        id: row.id,
        requested_operation: row.requestedOperation,
        target_integration: 'erp',
        resource_scope: 'invoices/1',
        final_outcome: row.finalOutcome,
        started_at: row.startedAt.toISOString(),
        completed_at: row.completedAt?.toISOString() ?? null,
      })),
      approval_counts: { pending: 2, approved: 1, denied: 0, expired: 1 },
      decisions_last_24h: { allow: 3, approval_required: 1, deny: 2 },
      trace_count: 7,
      budgets: [],
    });
  });

  it('answers 404 for another tenant’s agent, an unknown id and a malformed id', async () => {
    const tenant = await signupTenant(t.app);
    const other = await signupTenant(t.app);
    const foreign = await createAgent(t.app, other.admin);
    for (const [id, body] of [
      [foreign.id, notFound('Agent')],
      [randomUUID(), notFound('Agent')],
      ['not-a-uuid', MALFORMED_ID],
    ] as const) {
      expectErrorBody(await api.get(tenant.admin, `/api/v1/agents/${id}`), 404, body);
    }
  });

  it('requires agents:read', async () => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    expectErrorBody(await api.get(null, `/api/v1/agents/${agent.id}`), 401, UNAUTHENTICATED);
    expectErrorBody(await api.get(tenant.runtimeKey, `/api/v1/agents/${agent.id}`), 403, FORBIDDEN);
    expect((await api.get(await sessionWithRole(t.app, tenant, 'viewer'), `/api/v1/agents/${agent.id}`)).statusCode).toBe(200);
  });
});
