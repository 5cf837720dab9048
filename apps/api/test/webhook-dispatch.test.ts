import { verify } from '@octokit/webhooks-methods';
import { and, eq, sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { outbox, webhookDeliveries } from '@agov/db';
import { actionDigest } from '../../../packages/sdk/src/index.js';
import { FAST_DISPATCH_ENV, FAST_RETRY_DELAYS_MS } from '../../../test/processes.js';
import { eventually, startReceiver, type Receiver } from '../../../test/receiver.js';
import { client } from './client.js';
import { checkerFor } from './contract/checker.js';
import { action, createAgent, createPolicy } from './fixtures.js';
import { DISPATCH_DATABASES, signupTenant, type Tenant, useTestApp } from './harness.js';
import { asListed, evaluation } from './scenarios.js';

/*
 * Effects leave the service through the outbox, dispatched in-process (embedded mode: no
 * Redis). Development mode, so webhooks may go to plain http on the local host where the
 * receivers listen; retries and timers shortened.
 */
describe.each(Object.entries(DISPATCH_DATABASES))('dispatch on %s', (_name, database) => {
  const t = useTestApp(async () => ({
    jobs: true,
    env: {
      NODE_ENV: 'development',
      ...(await database()),
      ...FAST_DISPATCH_ENV,
      // Receivers here answer at once: only a starved machine would take longer, and a retry
      // of a delivery that did arrive would break the counts these tests make.
      WEBHOOK_TIMEOUT_MS: '10000',
      AUDIT_BATCH_INTERVAL_MS: '500',
      APPROVAL_EXPIRY_SWEEP_MS: '300',
    },
  }));
  const api = client(t);

  const receivers: Receiver[] = [];
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    // Every webhook these tests received is as the contract's `webhooks` describe it.
    const checker = checkerFor(t.app.swagger());
    const deliveries = receivers.flatMap((r) => r.received).filter((received) => received.headers['x-webhook-signature'] !== undefined);
    expect(deliveries.length).toBeGreaterThan(0);
    expect(deliveries.flatMap((delivery) => checker.checkDelivery(delivery))).toEqual([]);
  });
  async function receiver(...answers: Parameters<typeof startReceiver>) {
    const started = await startReceiver(...answers);
    receivers.push(started);
    return started;
  }

  /** A tenant with an endpoint at `url` for `events`, and an agent whose fixture action takes `effect`. */
  async function subscribed(url: string, events: string[], effect = 'approval_required') {
    const tenant = await signupTenant(t.app);
    const created = await api.post(tenant.admin, '/api/v1/webhooks', { url, events });
    expect(created.statusCode, created.body).toBe(201);
    const endpoint = created.json().data as { id: string; secret: string };
    const agent = await createAgent(t.app, tenant.admin);
    await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: effect, rationale: 'A human looks at repository writes.' });
    return { tenant, agent, endpoint };
  }

  /** The `n`-th envelope of `event` the receiver got, once it has arrived. */
  const arrival = (hook: Receiver, event: string, n = 1) =>
    eventually(async () => hook.envelopes().filter((envelope) => envelope.event === event)[n - 1], 10_000, `${event} #${n}`);

  const deliveries = async (tenant: Tenant, endpointId: string) =>
    (await api.get(tenant.admin, `/api/v1/webhooks/${endpointId}/deliveries`)).json().data as Record<string, unknown>[];
  const outboxOf = (tenantId: string) => t.runtime.database.db.select().from(outbox).where(eq(outbox.tenantId, tenantId));

  describe('webhook deliveries', () => {
    it('delivers approval.requested, signed per the spec and Standard Webhooks, and records it', async () => {
      const hook = await receiver(200);
      const { tenant, agent, endpoint } = await subscribed(hook.url, ['approval.requested']);
      const evaluated = await evaluation(t.app, tenant, action(agent.id));

      const [arrived] = await hook.waitFor(1);
      const envelope = JSON.parse(arrived!.body);
      const approval = (await api.get(tenant.admin, `/api/v1/approvals/${evaluated.approval_request_id}`)).json().data;
      const listed = asListed(approval);
      expect(envelope).toEqual({
        id: expect.any(String),
        event: 'approval.requested',
        timestamp: expect.any(String),
        tenant_id: tenant.tenantId,
        data: { approval: listed },
      });
      expect(Object.keys(envelope)).toEqual(['id', 'event', 'timestamp', 'tenant_id', 'data']);
      expect(envelope.data.approval.action_digest).toBe(await actionDigest(action(agent.id)));

      const [delivery] = await eventually(async () => {
        const rows = await deliveries(tenant, endpoint.id);
        return rows[0]?.status === 'delivered' && rows;
      });
      expect(delivery).toEqual({
        id: arrived!.headers['x-webhook-id'],
        event_type: 'approval.requested',
        status: 'delivered',
        http_status: 200,
        attempts: 1,
        created_at: expect.any(String),
        delivered_at: expect.any(String),
        next_retry_at: null,
      });
      expect(arrived!.headers['content-type']).toBe('application/json');
      expect(Date.parse(arrived!.headers['x-webhook-timestamp'] as string)).toBeGreaterThan(Date.now() - 60_000);
      expect(await verify(endpoint.secret, arrived!.body, arrived!.headers['x-webhook-signature'] as string)).toBe(true);
      const standard = new Webhook(Buffer.from(endpoint.secret).toString('base64'));
      expect(standard.verify(arrived!.body, arrived!.headers as Record<string, string>)).toEqual(envelope);
      expect(arrived!.headers['webhook-id']).toBe(delivery!.id);

      // Done effects leave the outbox; the approval's expiry, a day away, waits there.
      const left = await eventually(
        async () => {
          const rows = await outboxOf(tenant.tenantId);
          return rows.length === 1 && rows;
        },
        5_000,
        'outbox drained',
      );
      expect(left.map((row) => row.kind)).toEqual(['approval_expiry']);
    });

    it('retries a receiver that always fails: exactly 5 attempts with one delivery id, then failed', async () => {
      const hook = await receiver(500);
      const { tenant, agent, endpoint } = await subscribed(hook.url, ['approval.requested']);
      await evaluation(t.app, tenant, action(agent.id));

      const attempts = await hook.waitFor(5);
      const [delivery] = await eventually(async () => {
        const rows = await deliveries(tenant, endpoint.id);
        return rows[0]?.status === 'failed' && rows;
      });
      expect(delivery).toMatchObject({ status: 'failed', http_status: 500, attempts: 5, delivered_at: null, next_retry_at: null });
      expect(new Set(attempts.map((a) => a.headers['x-webhook-id']))).toEqual(new Set([delivery!.id]));
      expect(new Set(attempts.map((a) => JSON.parse(a.body).id)).size).toBe(1);
      // The configured delays separate the attempts.
      for (let i = 1; i < attempts.length; i += 1)
        expect(attempts[i]!.at - attempts[i - 1]!.at).toBeGreaterThanOrEqual(FAST_RETRY_DELAYS_MS[i - 1]! - 20);
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(hook.received).toHaveLength(5);
    });

    it('delivers on the second attempt after one failure, showing retrying in between', async () => {
      const hook = await receiver(['never', 200]);
      const { tenant, agent, endpoint } = await subscribed(hook.url, ['approval.requested']);
      await evaluation(t.app, tenant, action(agent.id));

      await hook.waitFor(1);
      const retrying = await eventually(async () => (await deliveries(tenant, endpoint.id)).find((d) => d.status === 'retrying'));
      expect(retrying).toMatchObject({ attempts: 1, http_status: null, next_retry_at: expect.any(String) });

      const attempts = await hook.waitFor(2);
      expect(attempts[1]!.headers['x-webhook-id']).toBe(attempts[0]!.headers['x-webhook-id']);
      const [delivered] = await eventually(async () => {
        const rows = await deliveries(tenant, endpoint.id);
        return rows[0]?.status === 'delivered' && rows;
      });
      expect(delivered).toMatchObject({ attempts: 2, http_status: 200, next_retry_at: null });
    });

    it('sends many deliveries of one tenant as batches of at most 32, each delivered exactly once', async () => {
      // A trigger of this suite's own database notes the size of every delivery batch written.
      const { database: db } = t.runtime;
      await db.db.execute(sql.raw('create table delivery_batch_sizes (size int not null)'));
      await db.db.execute(
        sql.raw(`create function note_delivery_batch() returns trigger language plpgsql as $$
          begin
            insert into delivery_batch_sizes values (jsonb_array_length(new.payload->'delivery_ids'));
            return new;
          end $$`),
      );
      await db.db.execute(
        sql.raw(`create trigger note_delivery_batch after insert on outbox
          for each row when (new.kind = 'webhook_delivery') execute function note_delivery_batch()`),
      );
      const hook = await receiver(200);
      const { tenant, agent, endpoint } = await subscribed(hook.url, ['approval.requested']);
      const count = 70;
      await Promise.all(Array.from({ length: count }, () => evaluation(t.app, tenant, action(agent.id))));

      const arrived = await hook.waitFor(count);
      const rows = await eventually(async () => {
        const all = (await api.get(tenant.admin, `/api/v1/webhooks/${endpoint.id}/deliveries?limit=100`)).json().data as {
          id: string;
          status: string;
        }[];
        return all.length === count && all.every((d) => d.status === 'delivered') && all;
      });
      expect(new Set(arrived.map((a) => a.headers['x-webhook-id']))).toEqual(new Set(rows.map((d) => d.id)));
      const batchSizes = (await db.rows<{ size: number }>(sql.raw('select size from delivery_batch_sizes'))).map((row) => row.size);
      expect(batchSizes.reduce((sum, size) => sum + size, 0)).toBe(count);
      expect(Math.max(...batchSizes)).toBeLessThanOrEqual(32);
      // Evaluations committed together reach the relay together: some batch holds several.
      expect(batchSizes.length).toBeLessThan(count);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(hook.received).toHaveLength(count);
      expect(await outboxOf(tenant.tenantId).then((left) => left.map((row) => row.kind))).toEqual(Array(count).fill('approval_expiry'));
    });

    it('sends nothing to an inactive endpoint, and drops effects nobody subscribed to', async () => {
      const hook = await receiver(200);
      const { tenant, agent, endpoint } = await subscribed(hook.url, ['approval.requested']);
      await api.patch(tenant.admin, `/api/v1/webhooks/${endpoint.id}`, { is_active: false });
      await evaluation(t.app, tenant, action(agent.id));

      // Only the approval's expiry, a day away, stays in the outbox.
      const left = await eventually(
        async () => {
          const rows = await outboxOf(tenant.tenantId);
          return rows.length === 1 && rows;
        },
        5_000,
        'unwanted effects dropped',
      );
      expect(left.map((row) => row.kind)).toEqual(['approval_expiry']);
      expect(hook.received).toHaveLength(0);
      expect(await t.runtime.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpoint.id))).toEqual([]);
    });
  });

  describe('every event type reaches its subscribers', () => {
    it('sends approval, trace, agent and policy events with their CONTRACT data', async () => {
      const hook = await receiver(200);
      const events = ['approval.approved', 'approval.denied', 'trace.completed', 'agent.suspended', 'agent.revoked', 'policy.updated'];
      const { tenant, agent } = await subscribed(hook.url, events, 'allow');

      const setup = await arrival(hook, 'policy.updated');
      expect(setup).toMatchObject({
        data: { change: 'created', policy: { agent_id: agent.id, policy_effect: 'allow', policy_version: 1 } },
      });

      const allowed = await evaluation(t.app, tenant, action(agent.id));
      expect((await api.post(tenant.admin, `/api/v1/traces/${allowed.trace_id}/outcome`, { status: 'success' })).statusCode).toBe(204);
      expect(await arrival(hook, 'trace.completed')).toMatchObject({
        data: {
          trace: { id: allowed.trace_id, agent_id: agent.id, agent_name: agent.name, operation: 'write', final_outcome: 'executed' },
        },
      });

      const policy = await createPolicy(t.app, tenant.admin, agent.id, {
        priority: 50,
        policy_effect: 'approval_required',
        rationale: 'Now a human looks at writes.',
      });
      expect(await arrival(hook, 'policy.updated', 2)).toMatchObject({
        data: { change: 'created', policy: { id: policy.id, policy_version: 1 } },
      });
      await api.patch(tenant.admin, `/api/v1/policies/${policy.id}`, { priority: 60 });
      expect(await arrival(hook, 'policy.updated', 3)).toMatchObject({
        data: { change: 'updated', policy: { id: policy.id, policy_version: 2, priority: 60 } },
      });
      await api.delete(tenant.admin, `/api/v1/policies/${policy.id}`);
      expect(await arrival(hook, 'policy.updated', 4)).toMatchObject({
        data: { change: 'deleted', policy: { id: policy.id, is_active: false } },
      });

      await createPolicy(t.app, tenant.admin, agent.id, {
        priority: 50,
        policy_effect: 'approval_required',
        rationale: 'Again a human looks at writes.',
      });
      const first = await evaluation(t.app, tenant, action(agent.id));
      const second = await evaluation(t.app, tenant, action(agent.id));
      await api.post(tenant.admin, `/api/v1/approvals/${first.approval_request_id}/approve`, { approver_name: 'Rita Reviewer' });
      await api.post(tenant.admin, `/api/v1/approvals/${second.approval_request_id}/deny`, { approver_name: 'Rita Reviewer' });
      expect(await arrival(hook, 'approval.approved')).toMatchObject({
        data: { approval: { id: first.approval_request_id, status: 'approved', approver_name: 'Rita Reviewer' } },
      });
      expect(await arrival(hook, 'approval.denied')).toMatchObject({
        data: { approval: { id: second.approval_request_id, status: 'denied' } },
      });

      await api.post(tenant.admin, `/api/v1/agents/${agent.id}/suspend`);
      expect(await arrival(hook, 'agent.suspended')).toMatchObject({ data: { agent: { id: agent.id, lifecycle_state: 'suspended' } } });
      await api.post(tenant.admin, `/api/v1/agents/${agent.id}/revoke`);
      expect(await arrival(hook, 'agent.revoked')).toMatchObject({ data: { agent: { id: agent.id, lifecycle_state: 'revoked' } } });

      expect(
        hook
          .envelopes()
          .map((envelope) => envelope.event)
          .sort(),
      ).toEqual(
        [
          'agent.revoked',
          'agent.suspended',
          'approval.approved',
          'approval.denied',
          'policy.updated',
          'policy.updated',
          'policy.updated',
          'policy.updated',
          'policy.updated',
          'trace.completed',
        ].sort(),
      );
      for (const envelope of hook.envelopes()) expect(envelope.tenant_id).toBe(tenant.tenantId);
    });

    it('expires an approval at its expires_at and sends approval.expired', async () => {
      const hook = await receiver(200);
      const tenant = await signupTenant(t.app);
      const agent = await createAgent(t.app, tenant.admin);
      await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'approval_required', max_session_ttl: 1 });
      await api.post(tenant.admin, '/api/v1/webhooks', { url: hook.url, events: ['approval.expired'] });
      const evaluated = await evaluation(t.app, tenant, action(agent.id));

      // Nobody reads the request: the scheduled expiry alone moves it.
      await hook.waitFor(1, 10_000);
      expect(hook.envelopes()[0]).toMatchObject({
        event: 'approval.expired',
        data: { approval: { id: evaluated.approval_request_id, status: 'expired' } },
      });
      expect((await api.get(tenant.admin, '/api/v1/approvals/count?status=expired')).json()).toEqual({ count: 1 });
      expect((await api.get(tenant.admin, `/api/v1/traces/${evaluated.trace_id}`)).json().final_outcome).toBe('expired');
    });

    it('expires an approval whose own expiry effect is gone through the periodic sweep', async () => {
      const hook = await receiver(200);
      const tenant = await signupTenant(t.app);
      const agent = await createAgent(t.app, tenant.admin);
      await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'approval_required', max_session_ttl: 1 });
      await api.post(tenant.admin, '/api/v1/webhooks', { url: hook.url, events: ['approval.expired'] });
      const evaluated = await evaluation(t.app, tenant, action(agent.id));
      const removed = await t.runtime.database.db
        .delete(outbox)
        .where(and(eq(outbox.tenantId, tenant.tenantId), eq(outbox.kind, 'approval_expiry')))
        .returning();
      expect(removed).toHaveLength(1);

      expect(await arrival(hook, 'approval.expired')).toMatchObject({
        data: { approval: { id: evaluated.approval_request_id, status: 'expired' } },
      });
      expect((await api.get(tenant.admin, '/api/v1/approvals/count?status=expired')).json()).toEqual({ count: 1 });
    });

    it('sends audit.event for every audit event recorded, with the audit export row as data', async () => {
      const hook = await receiver(200);
      const { tenant, agent } = await subscribed(hook.url, ['audit.event'], 'deny');
      const denied = await evaluation(t.app, tenant, action(agent.id));

      await hook.waitFor(5);
      const exported = (await api.get(tenant.admin, `/api/v1/audit/export?from=2000-01-01&to=2100-01-01`)).json() as Record<
        string,
        unknown
      >[];
      const sent = hook.envelopes().map((envelope) => envelope.data.event as Record<string, unknown>);
      expect(sent.sort((a, b) => String(a.event_id).localeCompare(String(b.event_id)))).toEqual(
        exported.sort((a, b) => String(a.event_id).localeCompare(String(b.event_id))),
      );
      expect(exported.map((row) => row.trace_id)).toEqual(Array(5).fill(denied.trace_id));
      expect(new Set(hook.envelopes().map((envelope) => envelope.event))).toEqual(new Set(['audit.event']));
    });

    it('announces audit.batch with the number of events recorded since the last batch', async () => {
      const hook = await receiver(200);
      const { tenant, agent } = await subscribed(hook.url, ['audit.batch'], 'deny');
      await evaluation(t.app, tenant, action(agent.id));
      await evaluation(t.app, tenant, action(agent.id));

      // On a busy machine the two evaluations may land in different batches: together the
      // batches count all ten events, each starting where the one before ended.
      const batches = await eventually(
        async () => {
          const sent = hook.envelopes();
          const counted = sent.reduce((sum, envelope) => sum + (envelope.data.event_count as number), 0);
          return counted >= 10 && sent;
        },
        10_000,
        'ten events announced',
      );
      for (const [i, batch] of batches.entries()) {
        expect(batch).toMatchObject({
          event: 'audit.batch',
          tenant_id: tenant.tenantId,
          data: { from: expect.any(String), to: expect.any(String) },
        });
        expect(batch.data.event_count).toBeGreaterThan(0);
        expect(Date.parse(batch.data.from as string)).toBeLessThan(Date.parse(batch.data.to as string));
        if (i > 0) expect(batch.data.from).toBe(batches[i - 1]!.data.to);
      }
      expect(batches.reduce((sum, envelope) => sum + (envelope.data.event_count as number), 0)).toBe(10);
      // Nothing new: no further batch.
      const announced = hook.received.length;
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(hook.received).toHaveLength(announced);
    });
  });
});
