import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthyAfterHanging } from '../../../test/hanging-endpoint.js';
import { FAST_DISPATCH_ENV } from '../../../test/processes.js';
import { eventually, startReceiver, type Receiver } from '../../../test/receiver.js';
import { client } from './client.js';
import { action, createAgent, createPolicy } from './fixtures.js';
import { DISPATCH_DATABASES, signupTenant, useTestApp } from './harness.js';
import { evaluation } from './scenarios.js';
import { sample, scrape } from './scrape.js';

/*
 * One tenant's endpoint stops answering while its events keep coming; another tenant's
 * webhooks must not wait behind it. Dispatched in-process (no Redis), with the time limit long
 * enough that "before the hanging posts time out" is far from "at once", and a first retry
 * delay longer than the test, so the breaker's refusal shows.
 */
const TIMEOUT_MS = 3_000;

describe.each(Object.entries(DISPATCH_DATABASES))('a hanging endpoint on %s', (_name, database) => {
  const t = useTestApp(async () => ({
    jobs: true,
    env: {
      NODE_ENV: 'development',
      ...(await database()),
      ...FAST_DISPATCH_ENV,
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      WEBHOOK_RETRY_DELAYS_MS: '60000,60000,60000,60000',
      // Longer than any hanging post, so no effect is handed out again while its post waits.
      OUTBOX_LEASE_MS: '60000',
      METRICS_PORT: '0',
    },
  }));
  const api = client(t);
  let metricsPort: number;
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    metricsPort = (await t.runtime.startMetricsServer())!;
  });
  afterAll(() => Promise.all(receivers.map((r) => r.close())));

  /** A tenant whose every evaluation sends approval.requested to a receiver answering `answer`. */
  async function subscribedTenant(answer: 200 | 'never') {
    const hook = await startReceiver(answer);
    receivers.push(hook);
    const tenant = await signupTenant(t.app);
    const created = await api.post(tenant.admin, '/api/v1/webhooks', { url: hook.url, events: ['approval.requested'] });
    expect(created.statusCode, created.body).toBe(201);
    const agent = await createAgent(t.app, tenant.admin);
    await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'approval_required' });
    const deliveries = async () =>
      (await api.get(tenant.admin, `/api/v1/webhooks/${created.json().data.id}/deliveries?limit=100`)).json().data as {
        status: string;
        attempts: number;
      }[];
    return { hook, deliveries, evaluate: () => evaluation(t.app, tenant, action(agent.id)) };
  }

  const endpointsTimingOut = async () => sample((await scrape(metricsPort)).text, 'agov_webhook_endpoints_timing_out');

  it("takes one delivery slot at most once it has timed out, so other tenants' webhooks go at once", async () => {
    const hanging = await subscribedTenant('never');
    const healthy = await subscribedTenant(200);
    expect(await endpointsTimingOut()).toBe(0);

    const arrived = await healthyAfterHanging(
      { ...hanging, timedOutOnce: async () => (await hanging.deliveries())[0]?.status === 'retrying' },
      healthy,
      TIMEOUT_MS,
    );

    // One post probes the hanging endpoint; the other ten wait for its answer, not for a slot each.
    expect(hanging.hook.received).toHaveLength(2);
    expect(arrived.at).toBeLessThan(hanging.hook.received[1]!.at + TIMEOUT_MS);
    expect(await endpointsTimingOut()).toBe(1);

    // The probe times out too: the held deliveries then fail at once, without a request, and
    // wait for their first retry like any attempt that timed out.
    const after = await eventually(
      async () => {
        const rows = await hanging.deliveries();
        return rows.length === 11 && rows.every((row) => row.status === 'retrying' && row.attempts === 1) && rows;
      },
      4 * TIMEOUT_MS,
      'every delivery attempted once',
    );
    expect(after).toHaveLength(11);
    expect(hanging.hook.received).toHaveLength(2);
    expect(await endpointsTimingOut()).toBe(1);
  });
});
