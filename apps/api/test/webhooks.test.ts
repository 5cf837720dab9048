import { randomUUID } from 'node:crypto';
import { verify } from '@octokit/webhooks-methods';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { webhookDeliveries, webhookEndpoints } from '@agov/db';
import { startReceiver, type Received } from '../../../test/receiver.js';
import { expectErrorBody, expectInvalidQuery, expectValidationError, invalidBody, MALFORMED_ID, notFound, ONE_OF } from './assertions.js';
import { client } from './client.js';
import { useTestApp, request, signupTenant, TestClock, type Credential, type TestApp } from './harness.js';

const clock = new TestClock();
const t = useTestApp({ clock });
const api = client(t);

const ENDPOINT_NOT_FOUND = notFound('Webhook endpoint');

/** The 400 of a URL the service will not send to, and why. */
const urlRefused = (reason: string) => ({
  error: 'validation_error',
  message: `url ${reason}`,
  details: { fields: [{ field: 'url', message: reason }] },
});

// Production resolves a host name at create; a public address literal needs no DNS.
const HOOK_URL = 'https://93.184.215.14/agov';
const ENDPOINT_FIELDS = ['created_at', 'description', 'events', 'id', 'is_active', 'url'];

async function createEndpoint(app: TestApp['app'], credential: Credential, payload: Record<string, unknown> = {}) {
  const response = await request(app, credential, {
    method: 'POST',
    url: '/api/v1/webhooks',
    payload: { url: HOOK_URL, events: ['approval.requested'], ...payload },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().data as { id: string; secret: string; url: string } & Record<string, unknown>;
}

const deliveriesOf = (endpointId: string) =>
  t.runtime.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId));

async function insertDelivery(
  tenantId: string,
  endpointId: string,
  createdAt: Date,
  status: 'pending' | 'delivered' | 'retrying' | 'failed',
) {
  const [row] = await t.runtime.database.db
    .insert(webhookDeliveries)
    .values({
      tenantId,
      endpointId,
      eventId: randomUUID(),
      eventType: 'approval.requested',
      payload: {},
      status,
      createdAt,
      attempts: status === 'pending' ? 0 : 1,
    })
    .returning();
  return row!;
}

describe('webhook endpoints', () => {
  it('creates an endpoint and shows its 64-hex secret only in the create response', async () => {
    const tenant = await signupTenant(t.app);
    const response = await api.post(tenant.admin, '/api/v1/webhooks', {
      url: HOOK_URL,
      events: ['approval.requested', 'trace.completed'],
      description: 'SIEM',
    });
    expect(response.statusCode).toBe(201);
    const created = response.json().data;
    expect(created).toEqual({
      id: expect.any(String),
      url: HOOK_URL,
      events: ['approval.requested', 'trace.completed'],
      secret: expect.stringMatching(/^[0-9a-f]{64}$/),
      is_active: true,
      description: 'SIEM',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(Object.keys(response.json())).toEqual(['data']);
    expect(Object.keys(created)).toEqual(['id', 'url', 'events', 'secret', 'is_active', 'description', 'created_at']);

    const bare = await createEndpoint(t.app, tenant.admin);
    expect(bare.description).toBeNull();

    const list = await api.get(tenant.admin, '/api/v1/webhooks');
    expect(list.statusCode).toBe(200);
    expect(list.json()).not.toHaveProperty('pagination');
    expect(list.json().data.map((e: { id: string }) => e.id)).toEqual([bare.id, created.id]);
    for (const endpoint of list.json().data) expect(Object.keys(endpoint).sort()).toEqual(ENDPOINT_FIELDS);
    expect(list.body).not.toContain(created.secret);

    const detail = await api.get(tenant.admin, `/api/v1/webhooks/${created.id}`);
    expect(detail.statusCode).toBe(200);
    const { secret: _secret, ...withoutSecret } = created;
    expect(detail.json()).toEqual({ data: withoutSecret });
  });

  it('updates only the given fields, sets updated_at, and never shows the secret', async () => {
    const tenant = await signupTenant(t.app);
    const { secret, ...created } = await createEndpoint(t.app, tenant.admin, { description: 'old' });
    const [before] = await t.runtime.database.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, created.id));
    clock.advance(5_000);
    const patched = await api.patch(tenant.admin, `/api/v1/webhooks/${created.id}`, {
      events: ['agent.suspended', 'agent.revoked'],
      is_active: false,
      description: null,
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().data).toEqual({ ...created, events: ['agent.suspended', 'agent.revoked'], is_active: false, description: null });
    expect(patched.body).not.toContain(secret);
    const [stored] = await t.runtime.database.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, created.id));
    expect(stored!.updatedAt.getTime() - Date.parse(created.created_at as string)).toBeGreaterThanOrEqual(5_000);
    expect(stored!.secret).toBe(before!.secret);

    const url = await api.patch(tenant.admin, `/api/v1/webhooks/${created.id}`, { url: 'https://93.184.215.15/in' });
    expect(url.json().data).toMatchObject({
      url: 'https://93.184.215.15/in',
      is_active: false,
      events: ['agent.suspended', 'agent.revoked'],
    });
  });

  it.each([
    ['a missing url', { events: ['approval.requested'] }, invalidBody([['url', 'is required']])],
    ['a missing events list', { url: HOOK_URL }, invalidBody([['events', 'is required']])],
    ['an empty events list', { url: HOOK_URL, events: [] }, invalidBody([['events', 'must NOT have fewer than 1 items']])],
    [
      'an unknown event',
      { url: HOOK_URL, events: ['approval.exploded'] },
      invalidBody([['events.0', 'must be equal to one of the allowed values']]),
    ],
    [
      'a duplicated event',
      { url: HOOK_URL, events: ['audit.event', 'audit.event'] },
      invalidBody([['events', 'must NOT have duplicate items (items ## 1 and 0 are identical)']]),
    ],
    ['an unknown field', { url: HOOK_URL, events: ['audit.event'], secret: 'f'.repeat(64) }, invalidBody([['secret', 'is not allowed']])],
    ['a server-owned field', { url: HOOK_URL, events: ['audit.event'], is_active: false }, invalidBody([['is_active', 'is not allowed']])],
    [
      'a plain-http url outside development',
      { url: 'http://hooks.example.com/agov', events: ['audit.event'] },
      urlRefused('must use https'),
    ],
    ['a url that is not one', { url: 'not a url', events: ['audit.event'] }, urlRefused('must be an absolute URL')],
    [
      'an overlong url',
      { url: `https://hooks.example.com/${'a'.repeat(2048)}`, events: ['audit.event'] },
      invalidBody([['url', 'must NOT have more than 2048 characters']]),
    ],
    [
      'an overlong description',
      { url: HOOK_URL, events: ['audit.event'], description: 'd'.repeat(501) },
      invalidBody([['description', 'must NOT have more than 500 characters']]),
    ],
  ])('refuses a create with %s: 400', async (_label, payload, body) => {
    const tenant = await signupTenant(t.app);
    const response = await api.post(tenant.admin, '/api/v1/webhooks', payload);
    expectErrorBody(response, 400, body);
  });

  it.each([
    ['no fields', {}, invalidBody([['(body)', 'must NOT have fewer than 1 properties']])],
    ['an empty events list', { events: [] }, invalidBody([['events', 'must NOT have fewer than 1 items']])],
    ['a plain-http url', { url: 'http://hooks.example.com/agov' }, urlRefused('must use https')],
    ['a non-boolean is_active', { is_active: 'no' }, invalidBody([['is_active', 'must be boolean']])],
    ['an unknown field', { secret: 'f'.repeat(64) }, invalidBody([['secret', 'is not allowed']])],
  ])('refuses a PATCH with %s: 400', async (_label, payload, body) => {
    const tenant = await signupTenant(t.app);
    const created = await createEndpoint(t.app, tenant.admin);
    const response = await api.patch(tenant.admin, `/api/v1/webhooks/${created.id}`, payload);
    expectErrorBody(response, 400, body);
  });

  it("answers 404 for another tenant's endpoint on every route and leaves it untouched", async () => {
    const owner = await signupTenant(t.app);
    const other = await signupTenant(t.app);
    const created = await createEndpoint(t.app, owner.admin);
    for (const [method, url, payload, body] of [
      ['GET', `/api/v1/webhooks/${created.id}`, undefined, ENDPOINT_NOT_FOUND],
      ['PATCH', `/api/v1/webhooks/${created.id}`, { is_active: false }, ENDPOINT_NOT_FOUND],
      ['DELETE', `/api/v1/webhooks/${created.id}`, undefined, ENDPOINT_NOT_FOUND],
      ['GET', `/api/v1/webhooks/${created.id}/deliveries`, undefined, ENDPOINT_NOT_FOUND],
      ['POST', `/api/v1/webhooks/${created.id}/test`, undefined, ENDPOINT_NOT_FOUND],
      ['GET', '/api/v1/webhooks/not-a-uuid', undefined, MALFORMED_ID],
    ] as const) {
      expectErrorBody(await request(t.app, other.admin, { method, url, payload }), 404, body);
    }
    expect((await api.get(other.admin, '/api/v1/webhooks')).json()).toEqual({ data: [] });
    const still = await api.get(owner.admin, `/api/v1/webhooks/${created.id}`);
    expect(still.json().data.is_active).toBe(true);
  });

  it('deletes an endpoint together with its delivery history', async () => {
    const tenant = await signupTenant(t.app);
    const created = await createEndpoint(t.app, tenant.admin);
    await insertDelivery(tenant.tenantId, created.id, new Date(), 'failed');
    expect(await deliveriesOf(created.id)).toHaveLength(1);

    const deleted = await api.delete(tenant.admin, `/api/v1/webhooks/${created.id}`);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect(await deliveriesOf(created.id)).toHaveLength(0);
    expectErrorBody(await api.get(tenant.admin, `/api/v1/webhooks/${created.id}`), 404, ENDPOINT_NOT_FOUND);
    expectErrorBody(await api.delete(tenant.admin, `/api/v1/webhooks/${created.id}`), 404, ENDPOINT_NOT_FOUND);
  });
});

it('documents every webhook route under the webhooks tag, with its success shape', async () => {
  const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const paths = ['/api/v1/webhooks', '/api/v1/webhooks/{id}', '/api/v1/webhooks/{id}/deliveries', '/api/v1/webhooks/{id}/test'];
  const operations = paths.flatMap((path) => Object.values(document.paths[path] as Record<string, { tags: string[] }>));
  expect(operations).toHaveLength(7);
  for (const operation of operations) expect(operation.tags).toEqual(['webhooks']);
  const testResult = document.paths['/api/v1/webhooks/{id}/test'].post.responses['200'].content['application/json'].schema;
  expect(testResult).toEqual({ $ref: '#/components/schemas/WebhookTestResult' });
  expect(Object.keys(document.components.schemas.WebhookTestResult.properties)).toEqual([
    'delivered',
    'http_status',
    'response_time_ms',
    'error',
  ]);
});

describe('GET /api/v1/webhooks/:id/deliveries', () => {
  it('lists deliveries newest first in the spec shape, filtered by status and capped by limit', async () => {
    const tenant = await signupTenant(t.app);
    const created = await createEndpoint(t.app, tenant.admin);
    const base = Date.parse('2026-05-01T10:00:00.000Z');
    const statuses = ['delivered', 'failed', 'retrying', 'delivered', 'pending'] as const;
    const rows = [];
    for (const [i, status] of statuses.entries())
      rows.push(await insertDelivery(tenant.tenantId, created.id, new Date(base + i * 1000), status));
    const retryAt = new Date(base + 60_000);
    const deliveredAt = new Date(base + 500);
    await t.runtime.database.db
      .update(webhookDeliveries)
      .set({ httpStatus: 200, deliveredAt })
      .where(eq(webhookDeliveries.id, rows[0]!.id));
    await t.runtime.database.db
      .update(webhookDeliveries)
      .set({ httpStatus: 503, nextRetryAt: retryAt, attempts: 2 })
      .where(eq(webhookDeliveries.id, rows[2]!.id));
    const list = (query = '') => api.get(tenant.admin, `/api/v1/webhooks/${created.id}/deliveries${query}`);

    const all = await list();
    expect(all.statusCode).toBe(200);
    expect(all.json()).not.toHaveProperty('pagination');
    expect(all.json().data.map((d: { id: string }) => d.id)).toEqual(rows.map((r) => r.id).reverse());
    expect(all.json().data[2]).toEqual({
      id: rows[2]!.id,
      event_type: 'approval.requested',
      status: 'retrying',
      http_status: 503,
      attempts: 2,
      created_at: new Date(base + 2000).toISOString(),
      delivered_at: null,
      next_retry_at: retryAt.toISOString(),
    });
    expect(all.json().data[4]).toMatchObject({
      status: 'delivered',
      http_status: 200,
      delivered_at: deliveredAt.toISOString(),
      next_retry_at: null,
    });

    const delivered = await list('?status=delivered');
    expect(delivered.json().data.map((d: { id: string }) => d.id)).toEqual([rows[3]!.id, rows[0]!.id]);
    expect((await list('?limit=2')).json().data.map((d: { id: string }) => d.id)).toEqual([rows[4]!.id, rows[3]!.id]);
    expect((await list('?status=delivered&limit=1')).json().data).toHaveLength(1);
    for (const [query, problem] of [
      ['limit=101', 'must be <= 100'],
      ['limit=0', 'must be >= 1'],
      ['status=lost', ONE_OF],
    ] as const)
      expectInvalidQuery(await list(`?${query}`), [[query.split('=')[0]!, problem]]);
  });

  it("does not show another endpoint's deliveries", async () => {
    const tenant = await signupTenant(t.app);
    const first = await createEndpoint(t.app, tenant.admin);
    const second = await createEndpoint(t.app, tenant.admin);
    await insertDelivery(tenant.tenantId, first.id, new Date(), 'pending');
    const response = await api.get(tenant.admin, `/api/v1/webhooks/${second.id}/deliveries`);
    expect(response.json()).toEqual({ data: [] });
  });
});

describe('POST /api/v1/webhooks/:id/test', () => {
  // Development mode accepts plain http on the local host, where the receiver listens.
  const dev = useTestApp({ env: { NODE_ENV: 'development', WEBHOOK_TIMEOUT_MS: '1000' } });

  const sendTest = (app: TestApp['app'], credential: Credential, id: string) =>
    request(app, credential, { method: 'POST', url: `/api/v1/webhooks/${id}/test` });

  it('sends a signed test envelope, even to an inactive endpoint, and records no delivery', async () => {
    const receiver = await startReceiver(200);
    try {
      const tenant = await signupTenant(dev.app);
      const created = await createEndpoint(dev.app, tenant.admin, { url: receiver.url });
      await request(dev.app, tenant.admin, { method: 'PATCH', url: `/api/v1/webhooks/${created.id}`, payload: { is_active: false } });

      const response = await sendTest(dev.app, tenant.admin, created.id);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ delivered: true, http_status: 200, response_time_ms: expect.any(Number) });
      expect(Number.isInteger(response.json().response_time_ms)).toBe(true);

      expect(receiver.received).toHaveLength(1);
      const [{ headers, body }] = receiver.received as [Received];
      expect(JSON.parse(body)).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        event: 'test',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        tenant_id: tenant.tenantId,
        data: { message: 'Test event from Agent Governance' },
      });
      expect(headers['content-type']).toMatch(/^application\/json/);
      expect(headers['x-webhook-id']).toEqual(expect.any(String));
      expect(headers['x-webhook-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(await verify(created.secret, body, headers['x-webhook-signature'] as string)).toBe(true);
      expect(await verify('0'.repeat(64), body, headers['x-webhook-signature'] as string)).toBe(false);
      expect(await deliveriesOf(created.id)).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });

  it('reports a receiver error as not delivered, without echoing its body', async () => {
    const receiver = await startReceiver(500);
    try {
      const tenant = await signupTenant(dev.app);
      const created = await createEndpoint(dev.app, tenant.admin, { url: receiver.url });
      const response = await sendTest(dev.app, tenant.admin, created.id);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        delivered: false,
        http_status: 500,
        response_time_ms: expect.any(Number),
        error: expect.any(String),
      });
      expect(response.body).not.toContain('RECEIVER-PRIVATE-BODY');
      expect(receiver.received).toHaveLength(1);
      expect(await deliveriesOf(created.id)).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });

  it('gives up on a receiver that does not answer within the webhook timeout', async () => {
    const receiver = await startReceiver('never');
    try {
      const tenant = await signupTenant(dev.app);
      const created = await createEndpoint(dev.app, tenant.admin, { url: receiver.url });
      const response = await sendTest(dev.app, tenant.admin, created.id);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        delivered: false,
        http_status: null,
        response_time_ms: expect.any(Number),
        error: expect.stringMatching(/timed out/),
      });
      expect(response.json().response_time_ms).toBeGreaterThanOrEqual(900);
      expect(await deliveriesOf(created.id)).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });

  it('refuses a body', async () => {
    const tenant = await signupTenant(dev.app);
    const created = await createEndpoint(dev.app, tenant.admin);
    const response = await request(dev.app, tenant.admin, {
      method: 'POST',
      url: `/api/v1/webhooks/${created.id}/test`,
      payload: { event: 'approval.requested' },
    });
    expectValidationError(response, 'This endpoint takes no body', [{ field: 'event', message: 'is not allowed' }]);
  });
});
