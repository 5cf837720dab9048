import { createHash, randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import postgres from 'postgres';
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, inject, it } from 'vitest';
import { idempotencyKeys } from '@agov/db';
import { deleteExpiredIdempotencyKeys, IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_TTL_MS } from '@agov/domain';
import { expectErrorBody, stopUntilTestEnds } from './assertions.js';
import { action, agentBody, createAgent, policyBody } from './fixtures.js';
import { DISPATCH_DATABASES, type Credential, request, signupTenant, type Tenant, TestClock, useTestApp } from './harness.js';
import { approvalEffectsOf, approvalRequired, requestApproval, tenantWithPolicy, traceOf } from './scenarios.js';

const clock = new TestClock();
const t = useTestApp({ clock });

/** A POST with an Idempotency-Key (when given one), its body sent as this exact JSON text. */
function post(credential: Credential, url: string, body: unknown, key?: string) {
  return request(t.app, credential, {
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

const newKey = () => `key-${randomUUID()}`;

/** The headers that describe one request rather than its answer: its id, the rate limit now, and the date. */
const PER_REQUEST = ['x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'date'];
const answerHeaders = (response: LightMyRequestResponse) =>
  Object.fromEntries(Object.entries(response.headers).filter(([name]) => !PER_REQUEST.includes(name)));

/** The replay is the first answer again: its status, body bytes and headers, and `Idempotent-Replayed: true`. */
function expectReplayOf(replay: LightMyRequestResponse, first: LightMyRequestResponse) {
  expect(replay.statusCode).toBe(first.statusCode);
  expect(replay.rawPayload.equals(first.rawPayload)).toBe(true);
  expect(answerHeaders(replay)).toEqual({ ...answerHeaders(first), 'idempotent-replayed': 'true' });
  expect(replay.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
  expect(first.headers['idempotent-replayed']).toBeUndefined();
}

const count = async (credential: Credential, url: string) => {
  const response = await request(t.app, credential, { method: 'GET', url });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().pagination?.total ?? response.json().data.length;
};

const keysOf = (tenant: Tenant) =>
  t.runtime.database.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.tenantId, tenant.tenantId));

const REUSED = {
  error: 'idempotency_key_reused',
  message: 'This Idempotency-Key was already used with another method, path or body; send a new key for a new request',
  details: { header: 'Idempotency-Key' },
};
const IN_PROGRESS = {
  error: 'conflict',
  message: 'A request with this Idempotency-Key is still being processed; retry once it has been answered',
  details: { header: 'Idempotency-Key' },
};

describe('Idempotency-Key: the first answer again, without the work', () => {
  it('evaluate: the same decision and trace, and no second trace', async () => {
    const { tenant, agent } = await tenantWithPolicy(t.app, 'allow');
    const key = newKey();
    const first = await post(tenant.runtimeKey, '/api/v1/evaluate', action(agent.id), key);
    expect(first.statusCode, first.body).toBe(200);
    const replay = await post(tenant.runtimeKey, '/api/v1/evaluate', action(agent.id), key);
    expectReplayOf(replay, first);
    expect(await count(tenant.runtimeKey, `/api/v1/traces?agent_id=${agent.id}`)).toBe(1);
  });

  it('creates: an agent, a rule, a webhook endpoint, an API key and a user are each created once', async () => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    const creates: [string, unknown, string][] = [
      ['/api/v1/agents', agentBody({ name: 'retried-bot' }), '/api/v1/agents'],
      ['/api/v1/policies', policyBody(agent.id), '/api/v1/policies'],
      ['/api/v1/webhooks', { url: 'https://93.184.215.14/hook', events: ['approval.approved'] }, '/api/v1/webhooks'],
      ['/api/v1/api-keys', { name: 'retried key', scopes: ['evaluate'] }, '/api/v1/api-keys'],
      [
        '/api/v1/users',
        { name: 'Rita Retry', email: `retry.${newKey()}@example.test`, password: 'a long enough password', role: 'viewer' },
        '/api/v1/users',
      ],
    ];
    for (const [url, body, list] of creates) {
      const before = await count(tenant.admin, list);
      const key = newKey();
      const first = await post(tenant.admin, url, body, key);
      expect(first.statusCode, first.body).toBe(201);
      expectReplayOf(await post(tenant.admin, url, body, key), first);
      expect(await count(tenant.admin, list)).toBe(before + 1);
    }
  });

  it('a stored answer is sealed: a new API key is not kept in the clear', async () => {
    const tenant = await signupTenant(t.app);
    const key = newKey();
    const first = await post(tenant.admin, '/api/v1/api-keys', { name: 'sealed key', scopes: ['evaluate'] }, key);
    expect(first.statusCode, first.body).toBe(201);
    const [row] = await keysOf(tenant);
    expect(row!.body).toMatch(/^enc:v1:[0-9a-f]{8}:[A-Za-z0-9_-]+$/);
    expect(row!.body).not.toContain(first.json().data.key);
    expectReplayOf(await post(tenant.admin, '/api/v1/api-keys', { name: 'sealed key', scopes: ['evaluate'] }, key), first);
  });

  it('approve: the decision once, one webhook, and the first answer to a retry', async () => {
    const { tenant, agent } = await approvalRequired(t.app);
    const approval = await requestApproval(t.app, tenant, agent.id);
    const key = newKey();
    const body = { approver_name: 'Rae Reviewer' };
    const first = await post(tenant.admin, `/api/v1/approvals/${approval.id}/approve`, body, key);
    expect(first.statusCode, first.body).toBe(200);
    const effects = await approvalEffectsOf(t, tenant.tenantId);
    expect(effects.webhooks).toHaveLength(1);
    // Without the key the same retry is refused: the request is no longer pending.
    const unkeyed = await post(tenant.admin, `/api/v1/approvals/${approval.id}/approve`, body);
    expect(unkeyed.statusCode).toBe(409);
    expectReplayOf(await post(tenant.admin, `/api/v1/approvals/${approval.id}/approve`, body, key), first);
    expect((await approvalEffectsOf(t, tenant.tenantId)).total).toBe(effects.total);
  });

  it('outcome: recorded once; the retry gets the same 204', async () => {
    const { tenant, agent } = await tenantWithPolicy(t.app, 'allow');
    const traceId = (await post(tenant.runtimeKey, '/api/v1/evaluate', action(agent.id))).json().trace_id;
    const key = newKey();
    const url = `/api/v1/traces/${traceId}/outcome`;
    const first = await post(tenant.runtimeKey, url, { status: 'success' }, key);
    expect(first.statusCode, first.body).toBe(204);
    const eventsAfterFirst = (await traceOf(t.app, tenant, traceId)).events.length;
    expectReplayOf(await post(tenant.runtimeKey, url, { status: 'success' }, key), first);
    expect((await traceOf(t.app, tenant, traceId)).events.length).toBe(eventsAfterFirst);
  });

  it('a 4xx answer is stored and given again, even once the request would succeed', async () => {
    const tenant = await signupTenant(t.app);
    const key = newKey();
    const missing = '00000000-0000-4000-8000-000000000000';
    const first = await post(tenant.admin, '/api/v1/policies', policyBody(missing), key);
    expectErrorBody(first, 404, { error: 'not_found', message: 'Agent not found' });
    expectReplayOf(await post(tenant.admin, '/api/v1/policies', policyBody(missing), key), first);
  });

  it('another body, or another path, with the same key: 422 idempotency_key_reused, nothing done', async () => {
    const tenant = await signupTenant(t.app);
    const key = newKey();
    expect((await post(tenant.admin, '/api/v1/agents', agentBody({ name: 'first-bot' }), key)).statusCode).toBe(201);
    expectErrorBody(await post(tenant.admin, '/api/v1/agents', agentBody({ name: 'second-bot' }), key), 422, REUSED);
    // The same JSON value, written with other bytes, is another body.
    const spaced = await request(t.app, tenant.admin, {
      method: 'POST',
      url: '/api/v1/agents',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      payload: JSON.stringify(agentBody({ name: 'first-bot' }), null, 2),
    });
    expectErrorBody(spaced, 422, REUSED);
    expectErrorBody(
      await post(tenant.admin, '/api/v1/webhooks', { url: 'https://93.184.215.14/a', events: ['approval.approved'] }, key),
      422,
      REUSED,
    );
    expect(await count(tenant.admin, '/api/v1/agents')).toBe(1);
    expect(await count(tenant.admin, '/api/v1/webhooks')).toBe(0);
  });

  it('ten concurrent requests with one key: one evaluation; the others get it again or 409', async () => {
    const { tenant, agent } = await tenantWithPolicy(t.app, 'allow');
    const key = newKey();
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => post(tenant.runtimeKey, '/api/v1/evaluate', action(agent.id), key)),
    );
    const worked = responses.filter((r) => r.statusCode === 200 && r.headers['idempotent-replayed'] === undefined);
    expect(worked).toHaveLength(1);
    for (const response of responses) {
      if (response === worked[0]) continue;
      if (response.statusCode === 409) expectErrorBody(response, 409, IN_PROGRESS);
      else expectReplayOf(response, worked[0]!);
    }
    expect(await count(tenant.runtimeKey, `/api/v1/traces?agent_id=${agent.id}`)).toBe(1);
  });

  it("another tenant's same key is its own", async () => {
    const [one, two] = [await signupTenant(t.app), await signupTenant(t.app)];
    const key = newKey();
    const first = await post(one.admin, '/api/v1/agents', agentBody(), key);
    const second = await post(two.admin, '/api/v1/agents', agentBody(), key);
    expect([first.statusCode, second.statusCode]).toEqual([201, 201]);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(second.json().data.id).not.toBe(first.json().data.id);
  });

  it('a request without the key stores nothing', async () => {
    const tenant = await signupTenant(t.app);
    await post(tenant.admin, '/api/v1/agents', agentBody());
    await post(tenant.admin, '/api/v1/agents', agentBody());
    expect(await count(tenant.admin, '/api/v1/agents')).toBe(2);
    expect(await keysOf(tenant)).toEqual([]);
  });

  it('refuses a key that is empty, too long or not printable ASCII, with 400 naming the header, and does nothing', async () => {
    const tenant = await signupTenant(t.app);
    const message = 'must be 1 to 255 printable ASCII characters';
    for (const key of ['', 'k'.repeat(256), 'tab\there', 'clé']) {
      expectErrorBody(await post(tenant.admin, '/api/v1/agents', agentBody(), key), 400, {
        error: 'validation_error',
        message: `Invalid header: Idempotency-Key ${message}`,
        details: { fields: [{ field: 'Idempotency-Key', message }] },
      });
    }
    expect((await post(tenant.admin, '/api/v1/agents', agentBody({ name: 'longest-key' }), 'k'.repeat(255))).statusCode).toBe(201);
    expect(await count(tenant.admin, '/api/v1/agents')).toBe(1);
  });

  it('a claim left by a request that died is 409 until its lease runs out, then the retry does the work', async () => {
    const tenant = await signupTenant(t.app);
    const key = newKey();
    const body = JSON.stringify(agentBody());
    const now = clock.now();
    await t.runtime.database.db.insert(idempotencyKeys).values({
      tenantId: tenant.tenantId,
      key,
      // The fingerprint as documented: method, path and body bytes, each after a line break but the last.
      fingerprint: createHash('sha256').update(`POST\n/api/v1/agents\n${body}`).digest('hex'),
      claimId: '00000000-0000-4000-8000-000000000001',
      state: 'in_progress',
      createdAt: now,
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
      lockedUntil: new Date(now.getTime() + IDEMPOTENCY_LEASE_MS),
    });
    expectErrorBody(await post(tenant.admin, '/api/v1/agents', agentBody(), key), 409, IN_PROGRESS);
    expect(await count(tenant.admin, '/api/v1/agents')).toBe(0);
    clock.advance(IDEMPOTENCY_LEASE_MS);
    const taken = await post(tenant.admin, '/api/v1/agents', agentBody(), key);
    expect(taken.statusCode, taken.body).toBe(201);
    expect(taken.headers['idempotent-replayed']).toBeUndefined();
    expectReplayOf(await post(tenant.admin, '/api/v1/agents', agentBody(), key), taken);
  });

  it('after 24 hours the key is free: the same request does the work again; the sweep deletes expired keys', async () => {
    const tenant = await signupTenant(t.app);
    stopUntilTestEnds(clock);
    const key = newKey();
    const first = await post(tenant.admin, '/api/v1/agents', agentBody(), key);
    expect(first.statusCode).toBe(201);
    clock.step(IDEMPOTENCY_TTL_MS - 1);
    expectReplayOf(await post(tenant.admin, '/api/v1/agents', agentBody(), key), first);
    const later = newKey();
    expect((await post(tenant.admin, '/api/v1/agents', agentBody({ name: 'later-bot' }), later)).statusCode).toBe(201);
    clock.step(1);
    const again = await post(tenant.admin, '/api/v1/agents', agentBody(), key);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.json().data.id).not.toBe(first.json().data.id);
    expect(await count(tenant.admin, '/api/v1/agents')).toBe(3);

    // `key` was taken over (24 h from now); `later` expires 1 ms before it.
    clock.step(IDEMPOTENCY_TTL_MS - 1);
    expect(await deleteExpiredIdempotencyKeys(t.runtime.deps)).toBeGreaterThanOrEqual(1);
    expect((await keysOf(tenant)).map((row) => row.key)).toEqual([key]);
    clock.step(1);
    await deleteExpiredIdempotencyKeys(t.runtime.deps, 1);
    expect(await keysOf(tenant)).toEqual([]);
  });
});

describe('Idempotency-Key: a 5xx is not stored', () => {
  const slow = useTestApp({ env: { DATABASE_STATEMENT_TIMEOUT_MS: '300' } });

  it('a request that failed with 503 is done by its retry', async () => {
    const { tenant, agent } = await approvalRequired(slow.app);
    const approval = await requestApproval(slow.app, tenant, agent.id);
    const key = newKey();
    const approve = () =>
      request(slow.app, tenant.admin, {
        method: 'POST',
        url: `/api/v1/approvals/${approval.id}/approve`,
        headers: { 'idempotency-key': key },
        payload: { approver_name: 'Rae Reviewer' },
      });
    // Another session holds the agent's row, which approving reads FOR SHARE: the statement times out.
    const other = postgres(inject('databaseUrl'), { max: 1, onnotice: () => {} });
    try {
      const failed = await other.begin(async (tx) => {
        await tx`select id from agents where id = ${agent.id} for update`;
        return approve();
      });
      expectErrorBody(failed, 503, { error: 'service_unavailable', message: 'The database took too long to answer' });
    } finally {
      await other.end();
    }
    const retried = await approve();
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(retried.json().data.status).toBe('approved');
  });
});

describe('Idempotency-Key in embedded mode', () => {
  const embedded = useTestApp(async () => ({ env: await DISPATCH_DATABASES.embedded() }));

  it('gives the first answer again', async () => {
    const tenant = await signupTenant(embedded.app);
    const send = () =>
      request(embedded.app, tenant.admin, {
        method: 'POST',
        url: '/api/v1/agents',
        headers: { 'idempotency-key': 'embedded-key' },
        payload: agentBody(),
      });
    const first = await send();
    expect(first.statusCode, first.body).toBe(201);
    const replay = await send();
    expect(replay.statusCode).toBe(201);
    expect(replay.body).toBe(first.body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const listed = await request(embedded.app, tenant.admin, { method: 'GET', url: '/api/v1/agents' });
    expect(listed.json().pagination.total).toBe(1);
  });
});
