import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { outbox } from '@agov/db';
import { expectErrorBody } from './assertions.js';
import { client } from './client.js';
import { action } from './fixtures.js';
import { keyWithScopes, signupTenant, type Tenant, useTestApp } from './harness.js';
import { evaluate, tenantWithPolicy } from './scenarios.js';

/**
 * Two instances on one database stand in for two processes: each has its own runtime, pool,
 * key and decision caches, and LISTEN connection. `a` makes every change; `b` has cached what
 * the change makes stale. `b`'s very next request after `a` answered must already honour the
 * change: the notice reaches `b` asynchronously (often after `a` has answered), so `b` checks
 * the invalidation clock before trusting a cache and waits for the notice it knows is due.
 * Each test asserts the first request, with no retry: a process that served a stale entry
 * even once fails it.
 */
const a = useTestApp();
const b = useTestApp();
const writer = client(a);
const reader = client(b);

const INVALID_KEY = { error: 'unauthorized', message: 'Invalid, expired or revoked API key' };

const me = (apiKey: string) => reader.get({ apiKey }, '/api/v1/auth/me');

/** Authenticates with `apiKey` in `b` and checks that `b` now answers it from its cache, not the database. */
async function warmKey(apiKey: string) {
  expect((await me(apiKey)).statusCode).toBe(200);
  expect(b.runtime.deps.caches.apiKeys.get(createHash('sha256').update(apiKey).digest('hex'))).toBeDefined();
}

/** Evaluates the fixture action in `b`, which caches the agent's decision inputs there. */
async function warmDecisionInputs(tenant: Tenant, agentId: string, decision: string) {
  expect((await evaluate(b.app, tenant, action(agentId))).json().decision).toBe(decision);
  expect(b.runtime.deps.caches.decisionInputs.get(agentId)).toBeDefined();
}

describe('API keys cached in another instance', () => {
  it(`a key deleted in one instance is refused by the other on its next request`, async () => {
    const tenant = await signupTenant(a.app);
    const key = await keyWithScopes(a.app, tenant, ['agents:read']);
    await warmKey(key.apiKey);

    expect((await writer.delete(tenant.admin, `/api/v1/api-keys/${key.id}`)).statusCode).toBe(204);

    expectErrorBody(await me(key.apiKey), 401, INVALID_KEY);
  });

  it(`a key rotated in one instance: the other refuses the old value on its next request and accepts the new one`, async () => {
    const tenant = await signupTenant(a.app);
    const key = await keyWithScopes(a.app, tenant, ['agents:read']);
    await warmKey(key.apiKey);

    const rotated = await writer.post(tenant.admin, `/api/v1/api-keys/${key.id}/rotate`);
    expect(rotated.statusCode).toBe(200);

    expectErrorBody(await me(key.apiKey), 401, INVALID_KEY);
    const accepted = await me(rotated.json().data.key);
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json().data.api_key.id).toBe(key.id);
  });
});

describe('decision inputs cached in another instance', () => {
  it(`an agent suspended in one instance is denied by the other on its next request`, async () => {
    const { tenant, agent } = await tenantWithPolicy(a.app, 'allow');
    await warmDecisionInputs(tenant, agent.id, 'allow');

    expect((await writer.post(tenant.admin, `/api/v1/agents/${agent.id}/suspend`)).statusCode).toBe(200);

    const denied = await evaluate(b.app, tenant, action(agent.id));
    expect(denied.statusCode).toBe(200);
    expect(denied.json()).toMatchObject({
      decision: 'deny',
      policy_rule_id: null,
      reason: 'Agent is suspended; suspended agents do not pass policy evaluation',
    });
  });

  it(`a rule's effect changed in one instance is applied by the other on its next request`, async () => {
    const { tenant, agent, rule } = await tenantWithPolicy(a.app, 'allow');
    await warmDecisionInputs(tenant, agent.id, 'allow');

    const patched = await writer.patch(tenant.admin, `/api/v1/policies/${rule.id}`, {
      policy_effect: 'deny',
      rationale: 'Writes are frozen.',
    });
    expect(patched.statusCode).toBe(200);

    const denied = await evaluate(b.app, tenant, action(agent.id));
    expect(denied.json()).toMatchObject({ decision: 'deny', policy_rule_id: rule.id, reason: 'Writes are frozen.' });
  });

  it(`a rule deleted (deactivated) in one instance no longer matches in the other on its next request`, async () => {
    const { tenant, agent, rule } = await tenantWithPolicy(a.app, 'allow');
    await warmDecisionInputs(tenant, agent.id, 'allow');

    expect((await writer.delete(tenant.admin, `/api/v1/policies/${rule.id}`)).statusCode).toBe(200);

    const unmatched = await evaluate(b.app, tenant, action(agent.id));
    expect(unmatched.json()).toMatchObject({ decision: 'deny', policy_rule_id: null });
    expect(unmatched.json().reason).toMatch(/no policy rule matched/i);
  });
});

describe("a tenant's effect audience cached in another instance", () => {
  const auditFanOuts = async (tenant: Tenant) =>
    (await b.runtime.database.db.select().from(outbox).where(eq(outbox.tenantId, tenant.tenantId))).filter(
      (row) => row.kind === 'audit_events',
    );

  it("an endpoint created in one instance receives the other's next evaluation", async () => {
    const { tenant, agent } = await tenantWithPolicy(a.app, 'allow');
    await warmDecisionInputs(tenant, agent.id, 'allow');
    expect(b.runtime.deps.caches.effectAudiences.get(tenant.tenantId)?.webhookEvents).toEqual(new Set());
    expect(await auditFanOuts(tenant)).toEqual([]);

    const created = await writer.post(tenant.admin, '/api/v1/webhooks', { url: 'https://93.184.215.14/audit', events: ['audit.event'] });
    expect(created.statusCode).toBe(201);

    const allowed = (await evaluate(b.app, tenant, action(agent.id))).json();
    expect((await auditFanOuts(tenant)).map((row) => row.payload)).toEqual([{ trace_id: allowed.trace_id, from_seq: 1, to_seq: 4 }]);
  });
});
