import { describe, expect, it } from 'vitest';
import { expireApproval, expireDueApprovals } from '@agov/domain';
import { expectErrorBody, ISO_TIME } from './assertions.js';
import { client } from './client.js';
import { useTestApp, TestClock, type Tenant } from './harness.js';
import {
  APPROVAL_REQUESTED_EVENTS,
  type Approval,
  approvalEffectsOf,
  approvalRequired,
  approvalSnapshot,
  decide,
  requestApproval,
  subscribeToAuditEvents,
  traceOf,
  verification,
} from './scenarios.js';

// One app whose clock the tests move past expires_at; every test makes its own tenant. The
// sweep expires whatever is due in the whole database, so these tests have one of their own.
const clock = new TestClock();
const t = useTestApp({ ownDatabase: true, clock });
const api = client(t);

/** The end state of an expired request, however it expired (sweep or refused late decision). */
async function expectExpired(tenant: Tenant, pending: Approval) {
  // The list never expires anything itself, so it shows what the expiry wrote.
  const listed = (await api.get(tenant.runtimeKey, `/api/v1/approvals?agent_id=${pending.agent_id}`)).json().data as Approval[];
  expect(listed.find((item) => item.id === pending.id)).toEqual({ ...pending, status: 'expired' });
  const trace = await traceOf(t.app, tenant, pending.trace_id);
  expect(trace).toMatchObject({ final_outcome: 'expired', completed_at: ISO_TIME });
  expect(trace.events.map((e) => e.event_type)).toEqual([...APPROVAL_REQUESTED_EVENTS, 'trace_closed']);
  expect(trace.events[5]).toMatchObject({
    actor_type: 'system',
    status: 'expired',
    approval_request_id: pending.id,
    timestamp: trace.completed_at,
  });
  expect(trace.approval_requests).toEqual([{ id: pending.id, status: 'expired', approver_name: null, decided_at: null }]);
  expect(await verification(t.app, tenant, pending.trace_id)).toMatchObject({ valid: true, event_count: 6 });
  const { webhooks, audit } = await approvalEffectsOf(t, tenant.tenantId);
  expect(webhooks).toEqual([
    {
      id: expect.any(String),
      event: 'approval.expired',
      timestamp: trace.completed_at,
      tenant_id: tenant.tenantId,
      data: { approval: { ...pending, status: 'expired' } },
    },
  ]);
  expect(audit).toEqual([
    { trace_id: pending.trace_id, from_seq: 1, to_seq: 5 },
    { trace_id: pending.trace_id, from_seq: 6, to_seq: 6 },
  ]);
}

describe('expiry', () => {
  it('the sweep expires an overdue request once: approval, trace, event and webhook', async () => {
    const { tenant, agent } = await approvalRequired(t.app, { max_session_ttl: 1 });
    await subscribeToAuditEvents(t.app, tenant);
    const pending = await requestApproval(t.app, tenant, agent.id);
    expect(Date.parse(pending.expires_at as string) - Date.parse(pending.requested_at)).toBe(1_000);
    clock.advance(2_000);
    // Overdue but not yet swept: still pending in the list.
    expect((await api.get(tenant.runtimeKey, `/api/v1/approvals?status=pending`)).json().data.map((a: Approval) => a.id)).toEqual([
      pending.id,
    ]);

    // Global across tenants, but this file has a database of its own and this is its first
    // test: the only request due is ours.
    expect(await expireDueApprovals(t.runtime.deps)).toBe(1);
    await expectExpired(tenant, pending);

    const before = await approvalSnapshot(t, tenant, pending);
    await expireDueApprovals(t.runtime.deps);
    expect(await expireApproval(t.runtime.deps, tenant.tenantId, pending.id)).toBe(false);
    expect(await approvalSnapshot(t, tenant, pending)).toEqual(before);
    await expectExpired(tenant, pending);
    expect((await api.get(tenant.runtimeKey, '/api/v1/approvals/count?status=expired')).json()).toEqual({ count: 1 });
  });

  it('does not expire a request before its expires_at', async () => {
    const { tenant, agent } = await approvalRequired(t.app, { max_session_ttl: 60 });
    await subscribeToAuditEvents(t.app, tenant);
    const pending = await requestApproval(t.app, tenant, agent.id);
    await expireDueApprovals(t.runtime.deps);
    expect(await expireApproval(t.runtime.deps, tenant.tenantId, pending.id)).toBe(false);
    expect((await api.get(tenant.runtimeKey, `/api/v1/approvals/${pending.id}/status`)).json().status).toBe('pending');
    expect((await decide(t.app, tenant.admin, pending.id, 'approve', { approver_name: 'Ada Admin' })).statusCode).toBe(200);
  });

  it('refuses a decision after expires_at with 409 and expires the request on the spot, once', async () => {
    const { tenant, agent } = await approvalRequired(t.app, { max_session_ttl: 1 });
    await subscribeToAuditEvents(t.app, tenant);
    const pending = await requestApproval(t.app, tenant, agent.id);
    clock.advance(2_000);
    const response = await decide(t.app, tenant.admin, pending.id, 'approve', { approver_name: 'Ada Admin' });
    expectErrorBody(response, 409, {
      error: 'conflict',
      message: 'approval request has expired',
      details: { status: 'expired', expires_at: pending.expires_at },
      trace_id: pending.trace_id,
    });
    await expectExpired(tenant, pending);

    const before = await approvalSnapshot(t, tenant, pending);
    const again = await decide(t.app, tenant.admin, pending.id, 'deny', { approver_name: 'Ada Admin' });
    expectErrorBody(again, 409, {
      error: 'conflict',
      message: 'approval request is expired, not pending',
      details: { status: 'expired' },
      trace_id: pending.trace_id,
    });
    expect(await expireApproval(t.runtime.deps, tenant.tenantId, pending.id)).toBe(false);
    expect(await approvalSnapshot(t, tenant, pending)).toEqual(before);
    await expectExpired(tenant, pending);
  });

  it('expires an overdue request exactly once under concurrent late decisions and sweeps', async () => {
    const { tenant, agent } = await approvalRequired(t.app, { max_session_ttl: 1 });
    await subscribeToAuditEvents(t.app, tenant);
    const pending = await requestApproval(t.app, tenant, agent.id);
    clock.advance(2_000);
    const calls = Array.from({ length: 10 }, (_, i) =>
      decide(t.app, tenant.admin, pending.id, i % 2 === 0 ? 'approve' : 'deny', { approver_name: `Late ${i}` }),
    );
    const [responses] = await Promise.all([
      Promise.all(calls),
      expireDueApprovals(t.runtime.deps),
      expireApproval(t.runtime.deps, tenant.tenantId, pending.id),
    ]);
    for (const response of responses) expect(response.json()).toMatchObject({ error: 'conflict', details: { status: 'expired' } });
    await expectExpired(tenant, pending);
  });

  it('reports an overdue pending request as expired on the status poll and the detail', async () => {
    const { tenant, agent } = await approvalRequired(t.app, { max_session_ttl: 1 });
    await subscribeToAuditEvents(t.app, tenant);
    const polled = await requestApproval(t.app, tenant, agent.id);
    clock.advance(2_000);
    const status = await api.get(tenant.runtimeKey, `/api/v1/approvals/${polled.id}/status`);
    expect(status.statusCode).toBe(200);
    expect(status.json()).toEqual({
      id: polled.id,
      status: 'expired',
      decided_at: null,
      approver_name: null,
      decision_note: null,
      action_digest: polled.action_digest,
      grant: null,
    });
    await expectExpired(tenant, polled);

    const { tenant: second, agent: secondAgent } = await approvalRequired(t.app, { max_session_ttl: 1 });
    await subscribeToAuditEvents(t.app, second);
    const viewed = await requestApproval(t.app, second, secondAgent.id);
    clock.advance(2_000);
    const detail = (await api.get(second.runtimeKey, `/api/v1/approvals/${viewed.id}`)).json().data;
    expect(detail).toMatchObject({
      status: 'expired',
      decided_at: null,
      trace: { final_outcome: 'expired', event_count: 6, completed_at: ISO_TIME },
    });
    await expectExpired(second, viewed);
  });
});
