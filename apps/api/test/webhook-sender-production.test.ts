import { lookup } from 'node:dns/promises';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookDeliveries } from '@agov/db';
import { FAST_DISPATCH_ENV } from '../../../test/processes.js';
import { eventually, type Receiver, startReceiver } from '../../../test/receiver.js';
import { ISO_TIME, stopUntilTestEnds } from './assertions.js';
import { client } from './client.js';
import { createAgent } from './fixtures.js';
import { signupTenant, TestClock, useTestApp } from './harness.js';

/*
 * The sender production deliveries go through (CONTRACT, hardening: every non-unicast address
 * is blocked in production, "checked on the address actually connected to ... on every send").
 * Registration refuses a local URL in production, so the endpoint is saved by a development
 * app on the same database, as an install that changed mode would have it; the production app,
 * as deployed (the harness default) and dispatching its effects in-process, must then refuse
 * to send there, though a real server listens at that address.
 */
const clock = new TestClock();
let hook: Receiver;
beforeAll(async () => {
  hook = await startReceiver(200);
});
afterAll(() => hook.close());

const dev = useTestApp({ ownDatabase: true, env: { NODE_ENV: 'development' } });
// One attempt, then a retry a minute away: the delivery stays as the first attempt left it.
const prod = useTestApp(() => ({
  jobs: true,
  clock,
  env: { DATABASE_URL: dev.runtime.config.databaseUrl!, ...FAST_DISPATCH_ENV, WEBHOOK_RETRY_DELAYS_MS: '60000' },
}));
const devApi = client(dev);
const prodApi = client(prod);

/** The address this machine resolves `localhost` to first, which the sender dials first. */
const LOCALHOST = (await lookup('localhost', { all: true }))[0]!.address;
const port = () => new URL(hook.url).port;

describe('the production sender', () => {
  it('runs in production', () => {
    expect(prod.runtime.config.mode).toBe('production');
  });

  it.each([
    ['a name that resolves to the loopback address', () => `http://localhost:${port()}/hook`, LOCALHOST],
    ['a loopback address', () => `http://127.0.0.1:${port()}/hook`, '127.0.0.1'],
  ])('refuses to deliver to %s, records why, and never reaches the server listening there', async (_label, url, address) => {
    const tenant = await signupTenant(prod.app);
    const saved = await devApi.post(tenant.admin, '/api/v1/webhooks', { url: url(), events: ['agent.suspended'] });
    expect(saved.statusCode, saved.body).toBe(201);
    const endpointId = saved.json().data.id as string;
    const agent = await createAgent(prod.app, tenant.admin);
    const received = hook.received.length;

    const at = stopUntilTestEnds(clock);
    expect((await prodApi.post(tenant.admin, `/api/v1/agents/${agent.id}/suspend`)).statusCode).toBe(200);
    const [delivery] = await eventually(async () => {
      const listed = (await prodApi.get(tenant.admin, `/api/v1/webhooks/${endpointId}/deliveries`)).json().data;
      return listed[0]?.attempts === 1 && listed;
    });

    expect(delivery).toEqual({
      id: expect.any(String),
      event_type: 'agent.suspended',
      status: 'retrying',
      http_status: null,
      attempts: 1,
      created_at: ISO_TIME,
      delivered_at: null,
      next_retry_at: new Date(at.getTime() + 60_000).toISOString(),
    });
    const [row] = await prod.runtime.database.db
      .select({ lastError: webhookDeliveries.lastError })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, delivery.id));
    expect(row).toEqual({ lastError: `address ${address} is not allowed (loopback)` });
    // The attempt was recorded after the sender gave up: anything it sent had arrived by then.
    expect(hook.received).toHaveLength(received);

    // Control: the address does answer, and a development app's sender reaches it.
    const tested = await devApi.post(tenant.admin, `/api/v1/webhooks/${endpointId}/test`);
    expect(tested.json()).toMatchObject({ delivered: true, http_status: 200 });
    expect(hook.received).toHaveLength(received + 1);
  });
});
