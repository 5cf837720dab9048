import { describe, expect, it } from 'vitest';
import { expireDueApprovals } from '@agov/domain';
import { expectErrorBody, expectInvalidQuery, ISO_TIME, notFound } from './assertions.js';
import { client } from './client.js';
import { createTestApp, signupTenant, TestClock, useTestApp } from './harness.js';
import { approvalRequired, decide, requestApproval } from './scenarios.js';

/**
 * A long poll that is never woken answers only when its wait ends, so every test that expects
 * a wake waits 60 s, twice the test's time limit: a wake that does not come fails the test.
 */
const LONGEST = 60;

const clock = new TestClock();
const t = useTestApp({ clock });
/** A second instance on the same database: another process, with its own listener. */
const other = useTestApp();
const api = client(t);

const statusUrl = (id: string, wait?: number | string) => `/api/v1/approvals/${id}/status${wait === undefined ? '' : `?wait=${wait}`}`;

/** Resolves once `count` requests of the app wait, so a move made after it is one they must hear. */
async function waiting(app: typeof t, count = 1) {
  await expect.poll(() => app.runtime.deps.approvalWaiters.size).toBe(count);
}

describe('GET /api/v1/approvals/:id/status?wait=N', () => {
  it('answers as soon as the request is approved, with the plain poll’s body', async () => {
    const { tenant, agent } = await approvalRequired(t.app);
    const pending = await requestApproval(t.app, tenant, agent.id);
    const answer = api.get(tenant.runtimeKey, statusUrl(pending.id, LONGEST));
    await waiting(t);
    expect((await decide(t.app, tenant.admin, pending.id, 'approve', { approver_name: 'Rita Reviewer' })).statusCode).toBe(200);
    const response = await answer;
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      id: pending.id,
      status: 'approved',
      decided_at: ISO_TIME,
      approver_name: 'Rita Reviewer',
      decision_note: null,
      action_digest: pending.action_digest,
      grant: expect.any(String),
    });
    expect(response.body).toBe((await api.get(tenant.runtimeKey, statusUrl(pending.id))).body);
    expect(t.runtime.deps.approvalWaiters.size).toBe(0);
  });

  it('is woken by a denial decided in another process', async () => {
    const { tenant, agent } = await approvalRequired(t.app);
    const pending = await requestApproval(t.app, tenant, agent.id);
    const answers = [
      api.get(tenant.runtimeKey, statusUrl(pending.id, LONGEST)),
      api.get(tenant.runtimeKey, statusUrl(pending.id, LONGEST)),
    ];
    await waiting(t, 2);
    const denied = await decide(other.app, tenant.admin, pending.id, 'deny', { approver_name: 'Rita Reviewer', decision_note: 'no' });
    expect(denied.statusCode).toBe(200);
    for (const response of await Promise.all(answers)) {
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ id: pending.id, status: 'denied', decision_note: 'no' });
    }
  });

  it('is woken when the sweep expires the request', async () => {
    const { tenant, agent } = await approvalRequired(t.app);
    const pending = await requestApproval(t.app, tenant, agent.id);
    const answer = api.get(tenant.runtimeKey, statusUrl(pending.id, LONGEST));
    await waiting(t);
    clock.advance(86_400_000 + 1_000);
    try {
      expect(await expireDueApprovals(t.runtime.deps)).toBeGreaterThanOrEqual(1);
    } finally {
      clock.advance(-(86_400_000 + 1_000));
    }
    expect((await answer).json()).toMatchObject({ id: pending.id, status: 'expired', decided_at: null });
  });

  it('reads the request again when it falls due, and answers it expired', async () => {
    const { tenant, agent } = await approvalRequired(t.app, { max_session_ttl: 2 });
    const pending = await requestApproval(t.app, tenant, agent.id);
    const response = await api.get(tenant.runtimeKey, statusUrl(pending.id, LONGEST));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: pending.id, status: 'expired' });
  });

  it('answers the pending status when the wait ends, and leaves no waiter behind', async () => {
    const { tenant, agent } = await approvalRequired(t.app);
    const pending = await requestApproval(t.app, tenant, agent.id);
    const response = await api.get(tenant.runtimeKey, statusUrl(pending.id, 1));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      id: pending.id,
      status: 'pending',
      decided_at: null,
      approver_name: null,
      decision_note: null,
      action_digest: pending.action_digest,
      grant: null,
    });
    expect(t.runtime.deps.approvalWaiters.size).toBe(0);
  });

  it('answers at once when the request is already decided', async () => {
    const { tenant, agent } = await approvalRequired(t.app);
    const pending = await requestApproval(t.app, tenant, agent.id);
    await decide(t.app, tenant.admin, pending.id, 'deny', { approver_name: 'Rita Reviewer' });
    const response = await api.get(tenant.runtimeKey, statusUrl(pending.id, LONGEST));
    expect(response.json()).toMatchObject({ status: 'denied' });
  });

  it('is 404 for another tenant’s request, without waiting', async () => {
    const { tenant, agent } = await approvalRequired(t.app);
    const pending = await requestApproval(t.app, tenant, agent.id);
    const stranger = await signupTenant(t.app);
    expectErrorBody(await api.get(stranger.runtimeKey, statusUrl(pending.id, LONGEST)), 404, notFound('Approval request'));
  });

  it.each([
    ['0', 'must be >= 1'],
    ['61', 'must be <= 60'],
    ['1.5', 'must be integer'],
    ['soon', 'must be integer'],
  ])('rejects ?wait=%s with 400', async (wait, problem) => {
    const { tenant, agent } = await approvalRequired(t.app);
    const pending = await requestApproval(t.app, tenant, agent.id);
    expectInvalidQuery(await api.get(tenant.runtimeKey, statusUrl(pending.id, wait)), [['wait', problem]]);
  });

  it('closes the polls’ connections with their answers on shutdown, so closing never waits for them to idle out', async () => {
    const closing = await createTestApp();
    const { tenant, agent } = await approvalRequired(closing.app);
    const base = await closing.app.listen({ port: 0, host: '127.0.0.1' });
    const polls = [];
    for (let i = 0; i < 3; i += 1) {
      const pending = await requestApproval(closing.app, tenant, agent.id);
      polls.push(fetch(`${base}${statusUrl(pending.id, LONGEST)}`, { headers: { authorization: `Bearer ${tenant.runtimeKey.apiKey}` } }));
    }
    await waiting(closing, 3);
    // Kept alive, an answered connection would hold the close for the server's keep-alive timeout (72 s).
    await closing.close();
    for (const poll of await Promise.all(polls)) {
      expect(poll.status).toBe(200);
      expect(poll.headers.get('connection')).toBe('close');
      expect(await poll.json()).toMatchObject({ status: 'pending' });
    }
  });

  it('answers waiting polls at once, pending, when the service shuts down', async () => {
    const closing = await createTestApp();
    const { tenant, agent } = await approvalRequired(closing.app);
    const pending = await requestApproval(closing.app, tenant, agent.id);
    const answer = client(closing.app).get(tenant.runtimeKey, statusUrl(pending.id, LONGEST));
    await waiting(closing);
    await closing.close();
    const response = await answer;
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: pending.id, status: 'pending' });
  });
});
