import { and, count, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { apiKeys, cacheInvalidationClock, policyRules, traces, type Tx } from '@agov/db';
import { expectErrorBody } from './assertions.js';
import { client } from './client.js';
import { action } from './fixtures.js';
import { useTestApp } from './harness.js';
import { evaluate, evaluation, tenantWithPolicy } from './scenarios.js';

/**
 * Evaluate skips reading the invalidation clock before it trusts its caches: its write checks
 * the clock instead, and a request whose caches may have missed a change is decided again.
 * Each test makes its change straight in the database with the clock moved and no notice sent,
 * as another process does whose notice has not arrived yet (here it never does: the request
 * waits for it as long as the service does, then drops its caches). The first request after
 * the change must honour it, be recorded once and be counted once.
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
