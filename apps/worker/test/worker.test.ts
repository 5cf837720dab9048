import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { approvalRequests, outbox, webhookDeliveries } from '@agov/db';
import { healthyAfterHanging } from '../../../test/hanging-endpoint.js';
import { dropRedisPrefixes, FAST_DISPATCH_ENV, freePort, startRedis, startWorker, type Started } from '../../../test/processes.js';
import { eventually, startReceiver, type Answer, type Receiver } from '../../../test/receiver.js';
import { startSmtpReceiver } from '../../../test/smtp-receiver.js';
import { action, createAgent, createPolicy } from '../../api/test/fixtures.js';
import { createTestApp, ownDatabase, request, signupTenant, type TestApp, uniqueEmail } from '../../api/test/harness.js';
import { approvalMailsTo, confirmAddresses, waitForApprovalMails } from '../../api/test/reviewers.js';

/*
 * The API with REDIS_URL records effects and dispatches nothing itself; worker processes
 * consume them from BullMQ. Each test has its own queue prefix, so nothing it queues reaches
 * another test's workers.
 */
const SHARED_REDIS = 'redis://127.0.0.1:6379';
let databaseUrl: string;
beforeAll(async () => {
  databaseUrl = await ownDatabase();
});

// Each test's queues live under a prefix of its own, removed from the shared Redis at the end.
const prefixes: string[] = [];
afterAll(async () => {
  await dropRedisPrefixes(SHARED_REDIS, prefixes);
});

const started: Started[] = [];
const receivers: Receiver[] = [];
const apps: TestApp[] = [];
afterEach(async () => {
  for (const process of started.splice(0).reverse()) await process.stop('SIGKILL');
  await Promise.all(receivers.splice(0).map((r) => r.close()));
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/** Timers short enough for a test; the same for the API and its workers. */
const timers = (webhookTimeoutMs = 2_000) => ({
  NODE_ENV: 'development',
  ...FAST_DISPATCH_ENV,
  WEBHOOK_TIMEOUT_MS: String(webhookTimeoutMs),
  LOG_LEVEL: 'info',
  MIGRATE_ON_START: 'false',
});

async function deployment(options: { redisUrl?: string; webhookTimeoutMs?: number; env?: Record<string, string> } = {}) {
  const prefix = `agov-test-${randomUUID()}`;
  prefixes.push(prefix);
  const env = {
    ...timers(options.webhookTimeoutMs),
    DATABASE_URL: databaseUrl,
    REDIS_URL: options.redisUrl ?? SHARED_REDIS,
    QUEUE_PREFIX: prefix,
    ...options.env,
  };
  const api = await createTestApp({ env, jobs: true });
  apps.push(api);
  return {
    api,
    async worker() {
      const worker = await startWorker(env);
      started.push(worker);
      return worker;
    },
  };
}

async function receiver(answers: Answer[] | Answer) {
  const hook = await startReceiver(answers);
  receivers.push(hook);
  return hook;
}

/** A tenant subscribed at `url` to approval.requested, with an agent that needs approval for every write. */
async function subscribedTenant(api: TestApp, url: string) {
  const tenant = await signupTenant(api.app);
  const created = await request(api.app, tenant.admin, {
    method: 'POST',
    url: '/api/v1/webhooks',
    payload: { url, events: ['approval.requested'] },
  });
  expect(created.statusCode, created.body).toBe(201);
  const agent = await createAgent(api.app, tenant.admin);
  await createPolicy(api.app, tenant.admin, agent.id, { policy_effect: 'approval_required' });
  const evaluate = async () => {
    const response = await request(api.app, tenant.runtimeKey, { method: 'POST', url: '/api/v1/evaluate', payload: action(agent.id) });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().approval_request_id as string;
  };
  return { tenant, endpointId: created.json().data.id as string, evaluate };
}

/** A pending approval that expires a second from now, in a tenant subscribed at `url` to approval.expired. */
async function expiringApproval(api: TestApp, url: string) {
  const tenant = await signupTenant(api.app);
  const subscribed = await request(api.app, tenant.admin, {
    method: 'POST',
    url: '/api/v1/webhooks',
    payload: { url, events: ['approval.expired'] },
  });
  expect(subscribed.statusCode, subscribed.body).toBe(201);
  const agent = await createAgent(api.app, tenant.admin);
  await createPolicy(api.app, tenant.admin, agent.id, { policy_effect: 'approval_required', max_session_ttl: 1 });
  const evaluated = await request(api.app, tenant.runtimeKey, { method: 'POST', url: '/api/v1/evaluate', payload: action(agent.id) });
  expect(evaluated.json()).toMatchObject({ decision: 'approval_required' });
  return { approvalId: evaluated.json().approval_request_id as string, tenantId: tenant.tenantId };
}

const deliveryRows = (api: TestApp, endpointId: string) =>
  api.runtime.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId));

describe('the worker process', () => {
  it('delivers what the API records, while the API itself dispatches nothing', async () => {
    const hook = await receiver(200);
    const { api, worker } = await deployment();
    expect(api.runtime.dispatch).toBeNull();
    const { evaluate, endpointId } = await subscribedTenant(api, hook.url);
    const approvals = [await evaluate(), await evaluate(), await evaluate()];

    // Recorded, not sent: no worker runs yet.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(hook.received).toHaveLength(0);

    await worker();
    await hook.waitFor(3);
    expect(new Set(hook.envelopes().map((envelope) => (envelope.data.approval as { id: string }).id))).toEqual(new Set(approvals));
    const rows = await eventually(async () => {
      const all = await deliveryRows(api, endpointId);
      return all.every((row) => row.status === 'delivered') && all;
    });
    expect(rows).toHaveLength(3);
  });

  it('sends each delivery once with two worker replicas', async () => {
    const hook = await receiver(200);
    const { api, worker } = await deployment();
    const { evaluate } = await subscribedTenant(api, hook.url);
    await Promise.all([worker(), worker()]);
    const approvals = await Promise.all(Array.from({ length: 20 }, () => evaluate()));

    await hook.waitFor(20);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(hook.received).toHaveLength(20);
    expect(new Set(hook.received.map((r) => r.headers['x-webhook-id'])).size).toBe(20);
    expect(new Set(hook.envelopes().map((envelope) => (envelope.data.approval as { id: string }).id))).toEqual(new Set(approvals));
  });

  it('finishes a delivery whose worker was killed mid-request, with the same delivery id', async () => {
    // The first request is never answered: the worker sending it is killed meanwhile.
    const hook = await receiver(['never', 200]);
    const { api, worker } = await deployment({ webhookTimeoutMs: 10_000 });
    const { evaluate, endpointId } = await subscribedTenant(api, hook.url);
    const doomed = await worker();
    await evaluate();
    await hook.waitFor(1);
    expect(await doomed.stop('SIGKILL')).toBeNull();

    await worker();
    const [first, second] = await hook.waitFor(2, 20_000);
    expect(second!.headers['x-webhook-id']).toBe(first!.headers['x-webhook-id']);
    const [row] = await eventually(async () => {
      const rows = await deliveryRows(api, endpointId);
      return rows[0]?.status === 'delivered' && rows;
    });
    expect(row).toMatchObject({ status: 'delivered', httpStatus: 200 });
  });

  it("holds a hanging endpoint to one post at a time, so another tenant's webhooks need not wait for a slot", async () => {
    const timeoutMs = 3_000;
    const hangingHook = await receiver('never');
    const healthyHook = await receiver(200);
    // A first retry a minute away: nothing but the breaker's probe reaches the hanging receiver.
    const { api, worker } = await deployment({ webhookTimeoutMs: timeoutMs, env: { WEBHOOK_RETRY_DELAYS_MS: '60000' } });
    const hanging = await subscribedTenant(api, hangingHook.url);
    const healthy = await subscribedTenant(api, healthyHook.url);
    await worker();
    const arrived = await healthyAfterHanging(
      { ...hanging, timedOutOnce: async () => (await deliveryRows(api, hanging.endpointId))[0]?.status === 'retrying' },
      { hook: healthyHook, evaluate: healthy.evaluate },
      timeoutMs,
    );
    expect(hangingHook.received).toHaveLength(2);
    expect(arrived.at).toBeLessThan(hangingHook.received[1]!.at + timeoutMs);
  });

  it('mails approval requests to the confirmed reviewers, skipping one decided before the worker ran', async () => {
    const smtp = await startSmtpReceiver();
    onTestFinished(() => smtp.close());
    const { api, worker } = await deployment({ env: { SMTP_URL: smtp.url, PUBLIC_URL: 'https://governance.example.com' } });
    const tenant = await signupTenant(api.app);
    const reviewer = uniqueEmail('reviewer');
    const saved = await request(api.app, tenant.admin, {
      method: 'PUT',
      url: '/api/v1/settings/notifications',
      payload: { email_enabled: true, reviewer_emails: [reviewer] },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    // The reviewer confirms with the link a first worker mails; that worker then stops.
    const first = await worker();
    await confirmAddresses(api.app, smtp, [reviewer]);
    await first.stop();
    const agent = await createAgent(api.app, tenant.admin);
    await createPolicy(api.app, tenant.admin, agent.id, { policy_effect: 'approval_required' });
    const evaluate = async () =>
      (await request(api.app, tenant.runtimeKey, { method: 'POST', url: '/api/v1/evaluate', payload: action(agent.id) })).json()
        .approval_request_id as string;
    const decided = await evaluate();
    const pending = await evaluate();
    const denial = await request(api.app, tenant.admin, {
      method: 'POST',
      url: `/api/v1/approvals/${decided}/deny`,
      payload: { approver_name: 'Ada' },
    });
    expect(denial.statusCode, denial.body).toBe(200);

    // Recorded, not sent: no worker runs now.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(approvalMailsTo(smtp, reviewer)).toEqual([]);

    await worker();
    const [mail] = await waitForApprovalMails(smtp, reviewer);
    expect(mail).toMatchObject({ envelope: { to: [reviewer] }, answer: 'accepted' });
    // The message itself is approval-email.test.ts's; here only which request it is about.
    expect(mail!.text).toContain(pending);
    expect(mail!.text).not.toContain(decided);
    await eventually(async () => {
      const rows = await api.runtime.database.db.select().from(outbox).where(eq(outbox.tenantId, tenant.tenantId));
      return rows.every((row) => row.kind !== 'approval_email');
    });
    expect(approvalMailsTo(smtp, reviewer)).toHaveLength(1);
  });

  it('expires an approval at its expires_at through the worker, nobody reading it', async () => {
    const hook = await receiver(200);
    // No sweep within the test: the approval's own expiry effect alone must move it.
    const { api, worker } = await deployment({ env: { APPROVAL_EXPIRY_SWEEP_MS: '600000' } });
    await worker();
    const { approvalId } = await expiringApproval(api, hook.url);

    const [delivery] = await hook.waitFor(1, 15_000);
    expect(JSON.parse(delivery!.body)).toMatchObject({
      event: 'approval.expired',
      data: { approval: { id: approvalId, status: 'expired' } },
    });
    const [row] = await api.runtime.database.db.select().from(approvalRequests).where(eq(approvalRequests.id, approvalId));
    expect(row).toMatchObject({ status: 'expired' });
  });

  it('still sweeps after Redis lost its data while connected (FLUSHALL), and expires what is due', async () => {
    const hook = await receiver(200);
    const port = await freePort();
    const redis = await startRedis(port);
    started.push(redis);
    const redisUrl = `redis://127.0.0.1:${port}`;
    const { api, worker } = await deployment({ redisUrl, env: { APPROVAL_EXPIRY_SWEEP_MS: '500' } });
    await worker();
    const admin = new Redis(redisUrl);
    onTestFinished(() => admin.quit().then(() => undefined));
    // The sweep's scheduler exists, then everything in Redis is gone, the connection kept.
    await eventually(async () => (await admin.keys('*approval_expiry_sweep*')).length > 0);
    await admin.flushall();

    // An approval whose own expiry effect is lost too: only the sweep can expire it.
    const { approvalId, tenantId } = await expiringApproval(api, hook.url);
    const removed = await api.runtime.database.db
      .delete(outbox)
      .where(and(eq(outbox.tenantId, tenantId), eq(outbox.kind, 'approval_expiry')))
      .returning();
    expect(removed).toHaveLength(1);

    const [delivery] = await hook.waitFor(1, 20_000);
    expect(JSON.parse(delivery!.body)).toMatchObject({
      event: 'approval.expired',
      data: { approval: { id: approvalId, status: 'expired' } },
    });
  });

  it('closes gracefully on SIGTERM', async () => {
    const { worker } = await deployment();
    const running = await worker();
    expect(await running.stop('SIGTERM')).toBe(0);
    expect(running.output()).toMatch(/worker shutting down/);
  });

  it('refuses to start without REDIS_URL', async () => {
    await expect(startWorker({ ...timers(), DATABASE_URL: databaseUrl })).rejects.toThrow(/REDIS_URL is required by the worker/);
  });
});

describe('Redis outages', () => {
  let redis: Started | null = null;
  afterAll(async () => {
    await redis?.stop('SIGKILL');
  });

  it('keeps evaluate answering while Redis is down, and delivers everything once it is back', async () => {
    const port = await freePort();
    redis = await startRedis(port);
    const hook = await receiver(200);
    const { api, worker } = await deployment({ redisUrl: `redis://127.0.0.1:${port}` });
    const { tenant, evaluate } = await subscribedTenant(api, hook.url);
    await worker();
    await evaluate();
    await hook.waitFor(1);

    await redis.stop('SIGKILL');
    const during = [await evaluate(), await evaluate(), await evaluate()];
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(hook.received).toHaveLength(1);

    // Back, and empty: whatever was queued is gone, and the outbox still has it.
    redis = await startRedis(port);
    await hook.waitFor(4, 30_000);
    const sent = hook.envelopes().map((envelope) => (envelope.data.approval as { id: string }).id);
    expect(sent.slice(1).sort()).toEqual([...during].sort());
    await eventually(async () => {
      const rows = await api.runtime.database.db.select().from(outbox).where(eq(outbox.tenantId, tenant.tenantId));
      return rows.every((row) => row.kind === 'approval_expiry');
    });
  });
});
