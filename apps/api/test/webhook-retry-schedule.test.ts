import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outbox, webhookDeliveries } from '@agov/db';
import { eventually, type Receiver, startReceiver } from '../../../test/receiver.js';
import { ISO_TIME, stopUntilTestEnds } from './assertions.js';
import { client } from './client.js';
import { createAgent } from './fixtures.js';
import { signupTenant, TestClock, useTestApp } from './harness.js';

/*
 * The retry schedule a deployment runs with: every other dispatch test shortens it, this one
 * leaves WEBHOOK_RETRY_DELAYS_MS unset. Effects are dispatched in-process and polled for often;
 * development mode lets the webhook go to the receiver's plain-http address on the local host.
 * The service's clock stands still while the delivery is attempted, so "1 minute after the
 * failed attempt" is one exact instant.
 */
const clock = new TestClock();
let hook: Receiver;
beforeAll(async () => {
  hook = await startReceiver(500);
});
afterAll(() => hook.close());
const t = useTestApp({ ownDatabase: true, jobs: true, clock, env: { NODE_ENV: 'development', OUTBOX_POLL_MS: '50' } });
const api = client(t);

describe('the default webhook retry schedule', () => {
  it('runs with the spec’s delays', () => {
    expect(t.runtime.config.webhookRetryDelaysMs).toEqual([60_000, 300_000, 1_800_000, 7_200_000]);
  });

  it('makes a failed first attempt due again exactly 1 minute later', async () => {
    const tenant = await signupTenant(t.app);
    const created = await api.post(tenant.admin, '/api/v1/webhooks', { url: hook.url, events: ['agent.suspended'] });
    expect(created.statusCode, created.body).toBe(201);
    const endpointId = created.json().data.id as string;
    const agent = await createAgent(t.app, tenant.admin);

    const at = stopUntilTestEnds(clock);
    expect((await api.post(tenant.admin, `/api/v1/agents/${agent.id}/suspend`)).statusCode).toBe(200);
    const [delivery] = await eventually(async () => {
      const listed = (await api.get(tenant.admin, `/api/v1/webhooks/${endpointId}/deliveries`)).json().data;
      return listed[0]?.attempts === 1 && listed;
    });

    expect(delivery).toEqual({
      id: expect.any(String),
      event_type: 'agent.suspended',
      status: 'retrying',
      http_status: 500,
      attempts: 1,
      created_at: ISO_TIME,
      delivered_at: null,
      next_retry_at: new Date(at.getTime() + 60_000).toISOString(),
    });
    expect(hook.received).toHaveLength(1);
    // The retry is an outbox row of its own, due at that instant, once the first attempt's row is done.
    const retries = await eventually(async () => {
      const rows = await t.runtime.database.db
        .select({ availableAt: outbox.availableAt, payload: outbox.payload })
        .from(outbox)
        .where(and(eq(outbox.tenantId, tenant.tenantId), eq(outbox.kind, 'webhook_delivery')));
      return rows.length === 1 && rows;
    });
    expect(retries).toEqual([{ availableAt: new Date(at.getTime() + 60_000), payload: { delivery_ids: [delivery.id] } }]);
    const [row] = await t.runtime.database.db
      .select({ lastError: webhookDeliveries.lastError })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, delivery.id));
    expect(row).toEqual({ lastError: 'HTTP 500' });
  });
});
