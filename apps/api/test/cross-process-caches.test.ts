import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from './assertions.js';
import { type Client, client } from './client.js';
import { action } from './fixtures.js';
import { createTestApp, keyWithScopes, signupTenant, type Tenant, type TestApp } from './harness.js';
import { evaluate, tenantWithPolicy } from './scenarios.js';

/**
 * Two instances on one database stand in for two processes: each has its own runtime, pool,
 * key and decision caches, and LISTEN connection. `a` makes every change; `b` has cached what
 * the change makes stale, and must drop it when `a`'s pg_notify reaches it.
 *
 * That notification is sent at commit and read by `b` asynchronously, so it can land after `a`
 * has answered: measured within about 1 ms of `a`'s response either way (p95; at worst 10 ms
 * after it), and `b`'s very next request still used the old entry in 10–45% of tries. So these
 * tests give `b` a bounded time to hear it, far below the caches' 30 s TTL: a change that stops
 * invalidating across processes leaves `b` serving the stale entry for the whole bound.
 */
const PROPAGATION_MS = 1_000;

let a: TestApp;
let b: TestApp;
let writer: Client;
let reader: Client;
beforeAll(async () => {
  a = await createTestApp();
  b = await createTestApp();
  writer = client(a.app);
  reader = client(b.app);
});
afterAll(async () => {
  await a.close();
  await b.close();
});

/** Repeats `send` until `settled` accepts its answer or PROPAGATION_MS pass; answers the last response. */
async function withinPropagation(send: () => Promise<LightMyRequestResponse>, settled: (response: LightMyRequestResponse) => boolean) {
  const deadline = Date.now() + PROPAGATION_MS;
  let response = await send();
  while (!settled(response) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    response = await send();
  }
  return response;
}

const me = (apiKey: string) => reader.get({ apiKey }, '/api/v1/auth/me');

/** Authenticates with `apiKey` in `b` and checks that `b` now answers it from its cache, not the database. */
async function warmKey(apiKey: string) {
  expect((await me(apiKey)).statusCode).toBe(200);
  expect(b.runtime.deps.apiKeys.get(createHash('sha256').update(apiKey).digest('hex'))).toBeDefined();
}

/** Evaluates the fixture action in `b`, which caches the agent's decision inputs there. */
async function warmDecisionInputs(tenant: Tenant, agentId: string, decision: string) {
  expect((await evaluate(b.app, tenant, action(agentId))).json().decision).toBe(decision);
  expect(b.runtime.deps.decisionInputs.get(agentId)).toBeDefined();
}

describe('API keys cached in another instance', () => {
  it(`a key deleted in one instance is refused by the other within ${PROPAGATION_MS} ms`, async () => {
    const tenant = await signupTenant(a.app);
    const key = await keyWithScopes(a.app, tenant, ['agents:read']);
    await warmKey(key.apiKey);

    expect((await writer.delete(tenant.admin, `/api/v1/api-keys/${key.id}`)).statusCode).toBe(204);

    const refused = await withinPropagation(
      () => me(key.apiKey),
      (response) => response.statusCode !== 200,
    );
    expectError(refused, 401, 'unauthorized');
  });

  it(`a key rotated in one instance: the other refuses the old value within ${PROPAGATION_MS} ms and accepts the new one`, async () => {
    const tenant = await signupTenant(a.app);
    const key = await keyWithScopes(a.app, tenant, ['agents:read']);
    await warmKey(key.apiKey);

    const rotated = await writer.post(tenant.admin, `/api/v1/api-keys/${key.id}/rotate`);
    expect(rotated.statusCode).toBe(200);

    const refused = await withinPropagation(
      () => me(key.apiKey),
      (response) => response.statusCode !== 200,
    );
    expectError(refused, 401, 'unauthorized');
    const accepted = await me(rotated.json().data.key);
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json().data.api_key.id).toBe(key.id);
  });
});

describe('decision inputs cached in another instance', () => {
  const decisionOf = (response: LightMyRequestResponse) => response.json().decision;

  it(`an agent suspended in one instance is denied by the other within ${PROPAGATION_MS} ms`, async () => {
    const { tenant, agent } = await tenantWithPolicy(a.app, 'allow');
    await warmDecisionInputs(tenant, agent.id, 'allow');

    expect((await writer.post(tenant.admin, `/api/v1/agents/${agent.id}/suspend`)).statusCode).toBe(200);

    const denied = await withinPropagation(
      () => evaluate(b.app, tenant, action(agent.id)),
      (response) => decisionOf(response) !== 'allow',
    );
    expect(denied.statusCode).toBe(200);
    expect(denied.json()).toMatchObject({
      decision: 'deny',
      policy_rule_id: null,
      reason: 'Agent is suspended; suspended agents do not pass policy evaluation',
    });
  });

  it(`a rule's effect changed in one instance is applied by the other within ${PROPAGATION_MS} ms`, async () => {
    const { tenant, agent, rule } = await tenantWithPolicy(a.app, 'allow');
    await warmDecisionInputs(tenant, agent.id, 'allow');

    const patched = await writer.patch(tenant.admin, `/api/v1/policies/${rule.id}`, {
      policy_effect: 'deny',
      rationale: 'Writes are frozen.',
    });
    expect(patched.statusCode).toBe(200);

    const denied = await withinPropagation(
      () => evaluate(b.app, tenant, action(agent.id)),
      (response) => decisionOf(response) !== 'allow',
    );
    expect(denied.json()).toMatchObject({ decision: 'deny', policy_rule_id: rule.id, reason: 'Writes are frozen.' });
  });

  it(`a rule deleted (deactivated) in one instance no longer matches in the other within ${PROPAGATION_MS} ms`, async () => {
    const { tenant, agent, rule } = await tenantWithPolicy(a.app, 'allow');
    await warmDecisionInputs(tenant, agent.id, 'allow');

    expect((await writer.delete(tenant.admin, `/api/v1/policies/${rule.id}`)).statusCode).toBe(200);

    const unmatched = await withinPropagation(
      () => evaluate(b.app, tenant, action(agent.id)),
      (response) => decisionOf(response) !== 'allow',
    );
    expect(unmatched.json()).toMatchObject({ decision: 'deny', policy_rule_id: null });
    expect(unmatched.json().reason).toMatch(/no policy rule matched/i);
  });
});
