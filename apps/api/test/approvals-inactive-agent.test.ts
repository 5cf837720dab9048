import { describe, expect, it } from 'vitest';
import { client } from './client.js';
import { useTestApp, type Tenant } from './harness.js';
import { type Approval, approvalRequired, approvalSnapshot, decide, requestApproval, traceOf } from './scenarios.js';

const t = useTestApp();
const api = client(t);

const moveAgent = async (tenant: Tenant, agentId: string, action: 'suspend' | 'revoke' | 'reactivate') => {
  const response = await api.post(tenant.admin, `/api/v1/agents/${agentId}/${action}`);
  expect(response.statusCode, response.body).toBe(200);
};

/** Approves as the admin, which must be refused because the agent is `state`; nothing may move. */
async function approvalRefused(tenant: Tenant, pending: Approval, state: 'suspended' | 'revoked') {
  const before = { ...(await approvalSnapshot(t, tenant, pending)), trace: await traceOf(t.app, tenant, pending.trace_id) };
  const response = await decide(t.app, tenant.admin, pending.id, 'approve', { approver_name: 'Ada Admin' });
  expect(response.statusCode).toBe(409);
  expect(response.json()).toEqual({
    error: 'conflict',
    status: 409,
    message: `agent is ${state}; only requests of an active agent can be approved`,
    details: { lifecycle_state: state },
    trace_id: pending.trace_id,
    request_id: expect.any(String),
  });
  expect({ ...(await approvalSnapshot(t, tenant, pending)), trace: await traceOf(t.app, tenant, pending.trace_id) }).toEqual(before);
  expect((await api.get(tenant.admin, `/api/v1/approvals/${pending.id}/status`)).json()).toMatchObject({ status: 'pending' });
}

describe('deciding a request whose agent is not active', () => {
  it('refuses to approve while suspended, still allows a denial, and approves again once reactivated', async () => {
    const { tenant, agent } = await approvalRequired(t.app);
    const first = await requestApproval(t.app, tenant, agent.id);
    const second = await requestApproval(t.app, tenant, agent.id);
    await moveAgent(tenant, agent.id, 'suspend');

    await approvalRefused(tenant, first, 'suspended');
    const denied = await decide(t.app, tenant.admin, first.id, 'deny', { approver_name: 'Ada Admin' });
    expect(denied.statusCode, denied.body).toBe(200);
    expect(denied.json().data.status).toBe('denied');

    await moveAgent(tenant, agent.id, 'reactivate');
    const approved = await decide(t.app, tenant.admin, second.id, 'approve', { approver_name: 'Ada Admin' });
    expect(approved.statusCode, approved.body).toBe(200);
    expect(approved.json().data.status).toBe('approved');
  });

  it('refuses to approve once revoked, and the request can still be denied', async () => {
    const { tenant, agent } = await approvalRequired(t.app);
    const pending = await requestApproval(t.app, tenant, agent.id);
    await moveAgent(tenant, agent.id, 'revoke');

    await approvalRefused(tenant, pending, 'revoked');
    const denied = await decide(t.app, tenant.admin, pending.id, 'deny', { approver_name: 'Ada Admin' });
    expect(denied.statusCode, denied.body).toBe(200);
    expect(denied.json().data.status).toBe('denied');
  });

  it('answers a decided request of a suspended agent with its status, not the agent state', async () => {
    const { tenant, agent } = await approvalRequired(t.app);
    const pending = await requestApproval(t.app, tenant, agent.id);
    expect((await decide(t.app, tenant.admin, pending.id, 'deny', { approver_name: 'Ada Admin' })).statusCode).toBe(200);
    await moveAgent(tenant, agent.id, 'suspend');
    const response = await decide(t.app, tenant.admin, pending.id, 'approve', { approver_name: 'Ada Admin' });
    expect(response.statusCode).toBe(409);
    expect(response.json().details).toEqual({ status: 'denied' });
  });
});
