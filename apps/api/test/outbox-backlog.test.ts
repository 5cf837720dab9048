import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outbox, webhookDeliveries } from '@agov/db';
import { eventually, startReceiver, type Receiver } from '../../../test/receiver.js';
import { client } from './client.js';
import { action, createAgent, createPolicy } from './fixtures.js';
import { signupTenant, useTestApp } from './harness.js';
import { evaluation } from './scenarios.js';

/*
 * Jobs start on a backlog that piled up while nothing dispatched (a worker down, a queue
 * unreachable). The relay polls once a minute here, so only a relay that keeps going while
 * it finds full batches can finish within the test's time.
 */
const BACKLOG = 1_100;

describe('a backlog of webhooks', () => {
  let hook: Receiver;
  beforeAll(async () => {
    hook = await startReceiver(200);
  });
  afterAll(() => hook.close());
  const t = useTestApp({ ownDatabase: true, env: { NODE_ENV: 'development', OUTBOX_POLL_MS: '60000' } });

  it('is taken batch after batch without waiting for the next poll, and every webhook arrives once', async () => {
    const tenant = await signupTenant(t.app);
    const created = await client(t).post(tenant.admin, '/api/v1/webhooks', { url: hook.url, events: ['approval.requested'] });
    expect(created.statusCode, created.body).toBe(201);
    const agent = await createAgent(t.app, tenant.admin);
    await createPolicy(t.app, tenant.admin, agent.id, {
      policy_effect: 'approval_required',
      rationale: 'A human looks at repository writes.',
    });
    for (let done = 0; done < BACKLOG; done += 100)
      await Promise.all(Array.from({ length: 100 }, () => evaluation(t.app, tenant, action(agent.id))));
    const waiting = await t.runtime.database.db.select().from(outbox).where(eq(outbox.kind, 'webhook'));
    expect(waiting.filter((row) => row.payload.event === 'approval.requested')).toHaveLength(BACKLOG);

    await t.runtime.startJobs('api');

    const arrived = await hook.waitFor(BACKLOG, 30_000);
    expect(new Set(arrived.map((request) => request.headers['x-webhook-id'])).size).toBe(BACKLOG);
    const deliveries = () => t.runtime.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.tenantId, tenant.tenantId));
    await eventually(
      async () => (await deliveries()).every((delivery) => delivery.status === 'delivered'),
      10_000,
      'every delivery recorded',
    );
    expect(await deliveries()).toHaveLength(BACKLOG);
    expect(hook.received).toHaveLength(BACKLOG);
  });
});
