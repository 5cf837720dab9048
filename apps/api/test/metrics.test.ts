import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { action, createAgent, createPolicy } from './fixtures.js';
import { client } from './client.js';
import { FAST_DISPATCH_ENV } from '../../../test/processes.js';
import { createTestApp, ownDatabase, signupTenant, type TestApp, useTestApp } from './harness.js';
import { approvalRequired, decide, evaluate, requestApproval } from './scenarios.js';
import { sample, scrape } from './scrape.js';

// Each app has a database of its own, so outbox figures can be compared exactly.
const METRICS_ENV = { METRICS_PORT: '0' };

describe('GET /metrics on METRICS_PORT', () => {
  const t = useTestApp({ ownDatabase: true, env: METRICS_ENV });
  let port: number;
  beforeAll(async () => {
    port = (await t.runtime.startMetricsServer())!;
  });

  const outboxRows = async () => (await t.runtime.database.rows<{ count: number }>('select count(*)::int as count from outbox'))[0]!.count;

  it('serves Prometheus text on /metrics and nothing else', async () => {
    const metrics = await scrape(port);
    expect(metrics.status).toBe(200);
    expect(metrics.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(metrics.text).toMatch(/^process_cpu_seconds_total /m);
    expect((await scrape(port, '/other')).status).toBe(404);
  });

  it('times evaluations answered 200, labelled by decision', async () => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    await createPolicy(t.app, tenant.admin, agent.id);
    const allowed = await evaluate(t.app, tenant, action(agent.id));
    expect(allowed.json().decision).toBe('allow');
    const invalid = await evaluate(t.app, tenant, {});
    expect(invalid.statusCode).toBe(400);

    const { text } = await scrape(port);
    expect(sample(text, 'agov_evaluate_duration_seconds_count{decision="allow"}')).toBe(1);
    expect(sample(text, 'agov_evaluate_duration_seconds_sum{decision="allow"}')).toBeGreaterThan(0);
    expect(sample(text, 'agov_evaluate_duration_seconds_bucket{le="1",decision="allow"}')).toBe(1);
    expect(text).not.toMatch(/decision="deny"/);
  });

  it('reports the outbox backlog and how long its longest-waiting due row has waited', async () => {
    const rows = await outboxRows();
    // The test above wrote this in this app's own database: the rule's policy.updated webhook
    // (its evaluation recorded no audit fan-out: the tenant has no endpoint to receive it).
    const kinds = await t.runtime.database.rows<{ kind: string }>('select kind from outbox order by kind');
    expect(kinds.map((row) => row.kind)).toEqual(['webhook']);
    expect(rows).toBe(1);

    // Nothing due: every row counts in the backlog, none in the age.
    await t.runtime.database.rows(`update outbox set available_at = now() + interval '1 hour'`);
    let { text } = await scrape(port);
    expect(sample(text, 'agov_outbox_backlog')).toBe(rows);
    expect(sample(text, 'agov_outbox_oldest_age_seconds')).toBe(0);

    await t.runtime.database.rows(`update outbox set available_at = now() - interval '1 hour'`);
    ({ text } = await scrape(port));
    expect(sample(text, 'agov_outbox_backlog')).toBe(rows);
    expect(sample(text, 'agov_outbox_oldest_age_seconds')).toBeGreaterThanOrEqual(3_600);
    expect(sample(text, 'agov_outbox_oldest_age_seconds')).toBeLessThan(3_660);
  });

  it('counts recorded webhook delivery attempts by outcome, every outcome from zero', async () => {
    const before = await scrape(port);
    expect(sample(before.text, 'agov_webhook_deliveries_total{outcome="delivered"}')).toBe(0);
    expect(sample(before.text, 'agov_webhook_deliveries_total{outcome="failed"}')).toBe(0);

    t.runtime.deps.observe.deliveryAttempted('failed');
    const { text } = await scrape(port);
    expect(sample(text, 'agov_webhook_deliveries_total{outcome="failed"}')).toBe(1);
    expect(sample(text, 'agov_webhook_deliveries_total{outcome="retrying"}')).toBe(0);
  });

  it('shows no queue depths or hanging endpoints in a process that does not dispatch', async () => {
    expect(t.runtime.dispatch).toBeNull();
    expect((await scrape(port)).text).not.toMatch(/agov_queue_depth|agov_webhook_endpoints_timing_out/);
  });
});

describe('metrics of a process that dispatches', () => {
  // Development mode lets webhooks go to plain http on the local host. One attempt, then a long wait.
  const t = useTestApp({
    ownDatabase: true,
    jobs: true,
    env: { ...METRICS_ENV, NODE_ENV: 'development', ...FAST_DISPATCH_ENV, WEBHOOK_RETRY_DELAYS_MS: '60000' },
  });
  let port: number;
  beforeAll(async () => {
    port = (await t.runtime.startMetricsServer())!;
  });

  it('shows the depth of each of its queues, and no endpoint timing out', async () => {
    const { text } = await scrape(port);
    expect(sample(text, 'agov_queue_depth{queue="effects"}')).toBe(0);
    expect(sample(text, 'agov_queue_depth{queue="webhooks"}')).toBe(0);
    expect(sample(text, 'agov_queue_depth{queue="deliveries"}')).toBe(0);
    expect(sample(text, 'agov_webhook_endpoints_timing_out')).toBe(0);
  });

  it('counts a delivery attempt the dispatch recorded', async () => {
    const tenant = await signupTenant(t.app);
    // The metrics port answers the delivery's POST with 404: a failed attempt, to be retried.
    const endpoint = await client(t.app).post(tenant.admin, '/api/v1/webhooks', {
      url: `http://127.0.0.1:${port}/hook`,
      events: ['approval.requested'],
    });
    expect(endpoint.statusCode, endpoint.body).toBe(201);
    const agent = await createAgent(t.app, tenant.admin);
    await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'approval_required' });
    const evaluated = await evaluate(t.app, tenant, action(agent.id));
    expect(evaluated.json().decision).toBe('approval_required');

    let retrying: number | undefined;
    for (const deadline = Date.now() + 10_000; retrying !== 1 && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      retrying = sample((await scrape(port)).text, 'agov_webhook_deliveries_total{outcome="retrying"}');
    }
    expect(retrying).toBe(1);
    const { text } = await scrape(port);
    expect(sample(text, 'agov_webhook_deliveries_total{outcome="failed"}')).toBe(0);
    expect(sample(text, 'agov_evaluate_duration_seconds_count{decision="approval_required"}')).toBe(1);
  });
});

describe('metrics while the database is unreachable', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { ...METRICS_ENV, DATABASE_URL: await ownDatabase() } });
  });
  // The test closes the database itself; letting go of the rest may then complain about it.
  afterAll(() => t.close().catch(() => undefined));

  it('still answers the scrape, without outbox samples, and logs the outage once', async () => {
    const port = (await t.runtime.startMetricsServer())!;
    await t.runtime.database.close();

    for (const { status, text } of [await scrape(port), await scrape(port)]) {
      expect(status).toBe(200);
      expect(sample(text, 'agov_outbox_backlog')).toBeUndefined();
      expect(sample(text, 'agov_outbox_oldest_age_seconds')).toBeUndefined();
      expect(text).toMatch(/^process_cpu_seconds_total /m);
    }
    expect(t.logs.filter((line) => line.includes('cannot read the outbox'))).toHaveLength(1);
  });
});

describe('agov_approval_status_waits', () => {
  const t = useTestApp({ env: METRICS_ENV });
  let port: number;
  beforeAll(async () => {
    port = (await t.runtime.startMetricsServer())!;
  });

  it('counts the requests long-polling an approval status', async () => {
    const { tenant, agent } = await approvalRequired(t.app);
    const pending = await requestApproval(t.app, tenant, agent.id);
    const waits = async () => sample((await scrape(port)).text, 'agov_approval_status_waits');
    expect(await waits()).toBe(0);
    const answer = client(t).get(tenant.runtimeKey, `/api/v1/approvals/${pending.id}/status?wait=60`);
    await expect.poll(waits).toBe(1);
    await decide(t.app, tenant.admin, pending.id, 'deny', { approver_name: 'Rita Reviewer' });
    expect((await answer).json().status).toBe('denied');
    expect(await waits()).toBe(0);
  });
});
