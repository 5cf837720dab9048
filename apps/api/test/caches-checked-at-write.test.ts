import { and, count, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { apiKeys, cacheInvalidationClock, policyRules, traces, type Tx } from '@agov/db';
import { expectErrorBody } from './assertions.js';
import { client } from './client.js';
import { action } from './fixtures.js';
import { type Credential, keyWithScopes, request, signupTenant, TestClock, useTestApp } from './harness.js';
import { expectLimitHeaders, stopInWindow, WINDOW_MS } from './rate-limit-support.js';
import { evaluate, evaluation, tenantWithPolicy } from './scenarios.js';

/**
 * Evaluate skips reading the invalidation clock before it trusts its caches: its write checks
 * the clock instead, and a request whose caches may have missed a change is decided again.
 * Every other authenticated request reads the clock, and meanwhile has its tenant's limit
 * judged on its caches as they are: judged again when the read brings a change.
 * Each test makes its change straight in the database with the clock moved and no notice sent,
 * as another process does whose notice has not arrived yet (here it never does: the request
 * waits for it as long as the service does, then drops its caches). The first request after
 * the change must honour it, be recorded once and be counted once, where it counts.
 */
const t = useTestApp();
const api = client(t);

/** Commits `change` with the invalidation clock moved on, and announces nothing. */
async function changeUnannounced(change: (tx: Tx) => Promise<unknown>) {
  await t.runtime.database.db.transaction(async (tx) => {
    await change(tx);
    await tx.update(cacheInvalidationClock).set({ seq: sql`${cacheInvalidationClock.seq} + 1` });
  });
}

async function tracesOf(tenantId: string) {
  const [row] = await t.runtime.database.db.select({ n: count() }).from(traces).where(eq(traces.tenantId, tenantId));
  return row!.n;
}

const remaining = (response: { headers: Record<string, unknown> }) => Number(response.headers['x-ratelimit-remaining']);

describe('evaluate on caches checked at its write', () => {
  it('a key deleted where the notice has not arrived is refused, and nothing is recorded', async () => {
    const { tenant, agent } = await tenantWithPolicy(t.app, 'allow');
    expect((await evaluation(t.app, tenant, action(agent.id))).decision).toBe('allow');

    await changeUnannounced((tx) => tx.delete(apiKeys).where(eq(apiKeys.tenantId, tenant.tenantId)));

    expectErrorBody(await evaluate(t.app, tenant, action(agent.id)), 401, {
      error: 'unauthorized',
      message: 'Invalid, expired or revoked API key',
    });
    expect(await tracesOf(tenant.tenantId)).toBe(1);
  });

  it('a rule changed where the notice has not arrived decides the next request, recorded once and counted once', async () => {
    const { tenant, agent, rule } = await tenantWithPolicy(t.app, 'allow');
    const first = await evaluate(t.app, tenant, action(agent.id));
    expect(first.json().decision).toBe('allow');

    await changeUnannounced((tx) => tx.update(policyRules).set({ policyEffect: 'deny' }).where(eq(policyRules.id, rule.id)));

    const second = await evaluate(t.app, tenant, action(agent.id));
    expect(second.statusCode).toBe(200);
    expect(second.json()).toMatchObject({ decision: 'deny', policy_rule_id: rule.id });
    expect(remaining(second)).toBe(remaining(first) - 1);
    const recorded = await t.runtime.database.db
      .select({ decision: traces.decision })
      .from(traces)
      .where(eq(traces.tenantId, tenant.tenantId))
      .orderBy(traces.startedAt);
    expect(recorded.map((row) => row.decision)).toEqual(['allow', 'deny']);
  });

  it('evaluations under way together when the clock moves are each recorded once, on the change', async () => {
    const { tenant, agent, rule } = await tenantWithPolicy(t.app, 'allow');
    expect((await evaluation(t.app, tenant, action(agent.id))).decision).toBe('allow');

    await changeUnannounced((tx) => tx.update(policyRules).set({ policyEffect: 'deny' }).where(eq(policyRules.id, rule.id)));

    const answers = await Promise.all(Array.from({ length: 12 }, () => evaluation(t.app, tenant, action(agent.id))));
    expect(answers.map((answer) => answer.decision)).toEqual(Array(12).fill('deny'));
    const recorded = await t.runtime.database.db
      .select({ n: count() })
      .from(traces)
      .where(and(eq(traces.tenantId, tenant.tenantId), eq(traces.decision, 'deny')));
    expect(recorded[0]!.n).toBe(12);
    expect(new Set(answers.map((answer) => answer.trace_id)).size).toBe(12);
    expect(await tracesOf(tenant.tenantId)).toBe(13);
  });

  it("an agent's throttle counts a request once though the clock moved while it was decided", async () => {
    const { tenant, agent } = await tenantWithPolicy(t.app, 'allow');
    const limited = await api.patch(tenant.admin, `/api/v1/agents/${agent.id}`, { max_requests_per_minute: 2, throttle_effect: 'deny' });
    expect(limited.statusCode).toBe(200);
    expect((await evaluation(t.app, tenant, action(agent.id))).decision).toBe('allow');

    await changeUnannounced(async () => {});

    expect((await evaluation(t.app, tenant, action(agent.id))).decision).toBe('allow');
    expect((await evaluation(t.app, tenant, action(agent.id))).reason).toBe(
      'Agent exceeded max_requests_per_minute: more than 2 requests in the last minute',
    );
    expect(await tracesOf(tenant.tenantId)).toBe(3);
  });
});

describe('other requests, their limit judged beside the check of their caches', () => {
  const PER_ADDRESS = 1_000;
  const FREE_READS = 600;
  const clock = new TestClock();
  // The plans' own figures for reads, and an address allowance of another figure to tell them apart.
  const u = useTestApp({ clock, env: { RATE_LIMIT_READ: '', RATE_LIMIT_UNAUTHENTICATED: String(PER_ADDRESS) } });
  const readAgents = (credential: Credential) => request(u.app, credential, { method: 'GET', url: '/api/v1/agents' });

  it('a key deleted where the notice has not arrived is refused and counted against the address, not the tenant', async () => {
    const start = stopInWindow(clock, 0);
    const tenant = await signupTenant(u.app);
    const key = await keyWithScopes(u.app, tenant, ['agents:read']);
    const before = remaining(await readAgents(tenant.admin));
    expectLimitHeaders(await readAgents({ apiKey: key.apiKey }), FREE_READS, before - 1, start + 2 * WINDOW_MS);

    await changeUnannounced((tx) => tx.delete(apiKeys).where(eq(apiKeys.id, key.id)));

    const refused = await readAgents({ apiKey: key.apiKey });
    expectErrorBody(refused, 401, { error: 'unauthorized', message: 'Invalid, expired or revoked API key' });
    expect(refused.headers['x-ratelimit-limit']).toBe(String(PER_ADDRESS));
    expectLimitHeaders(await readAgents(tenant.admin), FREE_READS, before - 2, start + 2 * WINDOW_MS);
  });

  it("a plan changed where the notice has not arrived sets the next request's limit, and the request counts once", async () => {
    const start = stopInWindow(clock, 0);
    const tenant = await signupTenant(u.app);
    const first = await readAgents(tenant.runtimeKey);
    const used = FREE_READS - remaining(first);
    expectLimitHeaders(first, FREE_READS, FREE_READS - used, start + 2 * WINDOW_MS);

    await changeUnannounced((tx) => tx.execute(sql`update subscriptions set plan = 'business' where tenant_id = ${tenant.tenantId}`));

    expectLimitHeaders(await readAgents(tenant.runtimeKey), 60_000, 60_000 - used - 1, start + 2 * WINDOW_MS);
  });

  it('a key narrowed where the notice has not arrived is forbidden on its next request, counted against its tenant', async () => {
    const start = stopInWindow(clock, 0);
    const tenant = await signupTenant(u.app);
    const key = await keyWithScopes(u.app, tenant, ['agents:read', 'evaluate']);
    const before = remaining(await readAgents({ apiKey: key.apiKey }));

    await changeUnannounced((tx) =>
      tx
        .update(apiKeys)
        .set({ scopes: ['evaluate'] })
        .where(eq(apiKeys.id, key.id)),
    );

    const forbidden = await readAgents({ apiKey: key.apiKey });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json()).toMatchObject({ error: 'forbidden', message: 'This credential may not perform this action' });
    expectLimitHeaders(forbidden, FREE_READS, before - 1, start + 2 * WINDOW_MS);
  });
});
