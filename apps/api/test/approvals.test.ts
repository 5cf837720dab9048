import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { outbox } from '@agov/db';
import { actionDigest } from '../../../packages/sdk/src/index.js';
import { expectErrorBody, expectInvalidQuery, ISO_TIME, MALFORMED_ID, notFound } from './assertions.js';
import { client } from './client.js';
import { action, createAgent, createPolicy } from './fixtures.js';
import { useTestApp, sessionWithRole, signupTenant, TestClock, type Tenant } from './harness.js';
import {
  APPROVAL_RATIONALE,
  type Approval,
  approvalEffectsOf,
  approvalRequired,
  decide,
  decision,
  evaluate,
  evaluation,
  requestApproval,
} from './scenarios.js';

// One app whose clock the list test moves forward; every test makes its own tenant.
const clock = new TestClock();
const t = useTestApp({ clock });
const api = client(t);

const ids = (response: { json(): { data: { id: string }[] } }) => response.json().data.map((item) => item.id);

describe('GET /api/v1/approvals and /count', () => {
  it('returns exactly the spec fields of a pending request', async () => {
    const { tenant, agent } = await approvalRequired(t.app);
    const evaluated = await evaluate(t.app, tenant, { ...action(agent.id), context: { ticket: 'OPS-7', amount: 12 } });
    const { approval_request_id: id, trace_id: traceId } = evaluated.json();
    const response = await api.get(tenant.runtimeKey, '/api/v1/approvals');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      data: [
        {
          id,
          trace_id: traceId,
          agent_id: agent.id,
          requested_operation: 'write',
          target_integration: 'github',
          resource_scope: 'repo/app',
          data_classification: 'internal',
          risk_classification: 'medium',
          authority_model: 'delegated',
          delegated_from: 'Olivia Owner',
          policy_effect: 'approval_required',
          flag_reason: APPROVAL_RATIONALE,
          status: 'pending',
          context_snapshot: { ticket: 'OPS-7', amount: 12 },
          action_digest: await actionDigest({ ...action(agent.id), context: { ticket: 'OPS-7', amount: 12 } }),
          expires_at: ISO_TIME,
          escalate_at: null,
          escalated_at: null,
          requested_at: ISO_TIME,
          decided_at: null,
          approver_name: null,
          decision_note: null,
          approvals_required: 1,
          votes: [],
        },
      ],
      pagination: { total: 1, limit: 20, offset: 0 },
    });
    const [item] = response.json().data;
    // No max_session_ttl on the rule: the tenant default of 86400 s.
    expect(Date.parse(item.expires_at) - Date.parse(item.requested_at)).toBe(86_400_000);
  });

  it('filters by status and agent, pages newest first, and counts, within the tenant only', async () => {
    const { tenant, agent: first } = await approvalRequired(t.app);
    const second = await createAgent(t.app, tenant.admin, { name: 'deploy-bot' });
    await createPolicy(t.app, tenant.admin, second.id, { policy_effect: 'approval_required' });
    const created: Approval[] = [];
    for (const agentId of [first.id, first.id, first.id, second.id]) {
      created.push(await requestApproval(t.app, tenant, agentId));
      clock.advance(5); // distinct requested_at, so the order is the creation order reversed
    }
    const [a1, a2, a3, b1] = created as [Approval, Approval, Approval, Approval];
    expect((await decide(t.app, tenant.admin, a1.id, 'approve', { approver_name: 'Ada' })).statusCode).toBe(200);
    expect((await decide(t.app, tenant.admin, a2.id, 'deny', { approver_name: 'Ada' })).statusCode).toBe(200);
    const other = await approvalRequired(t.app);
    const foreign = await requestApproval(t.app, other.tenant, other.agent.id);

    const list = (query = '') => api.get(tenant.runtimeKey, `/api/v1/approvals${query}`);
    const all = await list();
    expect(ids(all)).toEqual([b1.id, a3.id, a2.id, a1.id]);
    expect(all.json().pagination).toEqual({ total: 4, limit: 20, offset: 0 });
    const sorted = [...all.json().data].sort((x: Approval, y: Approval) =>
      x.requested_at === y.requested_at ? (x.id < y.id ? 1 : -1) : x.requested_at < y.requested_at ? 1 : -1,
    );
    expect(all.json().data).toEqual(sorted);

    expect(ids(await list('?status=pending'))).toEqual([b1.id, a3.id]);
    expect(ids(await list('?status=approved'))).toEqual([a1.id]);
    expect(ids(await list('?status=denied'))).toEqual([a2.id]);
    expect((await list('?status=expired')).json()).toEqual({ data: [], pagination: { total: 0, limit: 20, offset: 0 } });
    expect(ids(await list(`?agent_id=${second.id}`))).toEqual([b1.id]);
    expect(ids(await list(`?agent_id=${first.id}&status=pending`))).toEqual([a3.id]);
    expect((await list(`?agent_id=${other.agent.id}`)).json().pagination.total).toBe(0);
    expect((await list(`?agent_id=${randomUUID()}`)).json().data).toEqual([]);

    const page = await list('?limit=2&offset=1');
    expect(ids(page)).toEqual([a3.id, a2.id]);
    expect(page.json().pagination).toEqual({ total: 4, limit: 2, offset: 1 });
    expect((await list('?limit=2&offset=4')).json()).toEqual({ data: [], pagination: { total: 4, limit: 2, offset: 4 } });
    expect(ids(await list('?limit=100'))).toHaveLength(4);

    const count = async (who: Tenant, query = '') => {
      const response = await api.get(who.runtimeKey, `/api/v1/approvals/count${query}`);
      expect(response.statusCode).toBe(200);
      return response.json();
    };
    expect(await count(tenant)).toEqual({ count: 4 });
    expect(await count(tenant, '?status=pending')).toEqual({ count: 2 });
    expect(await count(tenant, '?status=approved')).toEqual({ count: 1 });
    expect(await count(tenant, '?status=denied')).toEqual({ count: 1 });
    expect(await count(tenant, '?status=expired')).toEqual({ count: 0 });
    expect(await count(other.tenant)).toEqual({ count: 1 });
    expect(await count(other.tenant, '?status=approved')).toEqual({ count: 0 });
    expect(ids(await api.get(other.tenant.runtimeKey, '/api/v1/approvals'))).toEqual([foreign.id]);
  });

  it.each([
    ['status=open', 'must be equal to one of the allowed values'],
    ['limit=101', 'must be <= 100'],
    ['limit=0', 'must be >= 1'],
    ['offset=-1', 'must be >= 0'],
    ['agent_id=agent-1', 'must match format "uuid"'],
  ])('rejects ?%s with 400', async (query, problem) => {
    const tenant = await signupTenant(t.app);
    expectInvalidQuery(await api.get(tenant.runtimeKey, `/api/v1/approvals?${query}`), [[query.split('=')[0]!, problem]]);
  });

  it('rejects an unknown status on count with 400', async () => {
    const tenant = await signupTenant(t.app);
    expectInvalidQuery(await api.get(tenant.runtimeKey, '/api/v1/approvals/count?status=open'), [
      ['status', 'must be equal to one of the allowed values'],
    ]);
  });
});

describe('GET /api/v1/approvals/:id and /status', () => {
  it('returns the request with a summary of its agent and its trace', async () => {
    const { tenant, agent } = await approvalRequired(t.app);
    const pending = await requestApproval(t.app, tenant, agent.id);
    const viewer = await sessionWithRole(t.app, tenant, 'viewer');
    const response = await api.get(viewer, `/api/v1/approvals/${pending.id}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      data: {
        ...pending,
        grant: null,
        grant_expires_at: null,
        grant_redeemed_at: null,
        agent: {
          id: agent.id,
          name: 'invoice-bot',
          description: 'Reconciles supplier invoices',
          owner_name: 'Olivia Owner',
          team: 'finance',
          environment: 'dev',
          authority_model: 'delegated',
          autonomy_tier: 'medium',
          lifecycle_state: 'active',
        },
        trace: {
          id: pending.trace_id,
          agent_id: agent.id,
          agent_name: 'invoice-bot',
          authority_model: 'delegated',
          requested_operation: 'write',
          target_integration: 'github',
          resource_scope: 'repo/app',
          final_outcome: 'in_progress',
          started_at: pending.requested_at,
          completed_at: null,
          duration_ms: null,
          event_count: 5,
          has_approval: true,
        },
      },
    });
  });

  it('polls a flat status before and after a decision', async () => {
    const { tenant, agent } = await approvalRequired(t.app);
    const pending = await requestApproval(t.app, tenant, agent.id);
    const poll = () => api.get(tenant.runtimeKey, `/api/v1/approvals/${pending.id}/status`);
    expect((await poll()).json()).toEqual({
      id: pending.id,
      status: 'pending',
      decided_at: null,
      approver_name: null,
      decision_note: null,
      action_digest: pending.action_digest,
      grant: null,
    });
    const denied = (
      await decide(t.app, tenant.admin, pending.id, 'deny', { approver_name: 'Rita Reviewer', decision_note: 'Not this week.' })
    ).json().data;
    const response = await poll();
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      id: pending.id,
      status: 'denied',
      decided_at: denied.decided_at,
      approver_name: 'Rita Reviewer',
      decision_note: 'Not this week.',
      action_digest: pending.action_digest,
      grant: null,
    });
    const detail = (await api.get(tenant.runtimeKey, `/api/v1/approvals/${pending.id}`)).json().data;
    expect(detail).toMatchObject({
      status: 'denied',
      trace: { final_outcome: 'denied', completed_at: denied.decided_at, duration_ms: expect.any(Number), event_count: 8 },
    });
  });

  it("answers 404 for an unknown id, another tenant's id and a malformed id", async () => {
    const { tenant, agent } = await approvalRequired(t.app);
    const foreign = await requestApproval(t.app, tenant, agent.id);
    const other = await signupTenant(t.app);
    for (const [id, body] of [
      [randomUUID(), notFound('Approval request')],
      [foreign.id, notFound('Approval request')],
      ['not-a-uuid', MALFORMED_ID],
    ] as const) {
      for (const suffix of ['', '/status']) expectErrorBody(await api.get(other.runtimeKey, `/api/v1/approvals/${id}${suffix}`), 404, body);
      for (const verdict of ['approve', 'deny'] as const)
        expectErrorBody(await decide(t.app, other.admin, id, verdict, { approver_name: 'Mallory' }), 404, body);
    }
    // Nothing the other tenant did touched the request.
    expect((await api.get(tenant.runtimeKey, `/api/v1/approvals/${foreign.id}/status`)).json().status).toBe('pending');
  });
});

describe('action_digest', () => {
  const CONTEXT = {
    change: { files: ['src/app.ts', 'docs/ünïcode.md'], lines: { added: 12, removed: 3.5 } },
    ticket: 'OPS-7',
    urgent: null,
  };

  it('is the SDK’s digest of the evaluated action on the list, the detail, the status poll and every approval webhook', async () => {
    const { tenant, agent } = await approvalRequired(t.app, { max_session_ttl: 60 });
    const hooks = await api.post(tenant.admin, '/api/v1/webhooks', {
      url: 'https://93.184.215.14/approvals',
      events: ['approval.requested', 'approval.approved', 'approval.denied', 'approval.expired'],
    });
    expect(hooks.statusCode, hooks.body).toBe(201);
    const requested = { ...action(agent.id), context: CONTEXT };
    const expected = await actionDigest(requested);
    const [approved, denied, expired] = [
      await requestApproval(t.app, tenant, agent.id, CONTEXT),
      await requestApproval(t.app, tenant, agent.id, CONTEXT),
      await requestApproval(t.app, tenant, agent.id, CONTEXT),
    ] as [Approval, Approval, Approval];
    expect(approved.action_digest).toBe(expected);

    const detail = (await api.get(tenant.runtimeKey, `/api/v1/approvals/${approved.id}`)).json().data;
    expect(detail.action_digest).toBe(expected);
    expect((await api.get(tenant.runtimeKey, `/api/v1/approvals/${approved.id}/status`)).json().action_digest).toBe(expected);

    await decision(t.app, tenant, approved.id, 'approve', { approver_name: 'Rita Reviewer' });
    await decision(t.app, tenant, denied.id, 'deny', { approver_name: 'Rita Reviewer' });
    clock.advance(61_000);
    try {
      // Reading an overdue request expires it on the spot.
      expect((await api.get(tenant.runtimeKey, `/api/v1/approvals/${expired.id}/status?wait=1`)).json()).toMatchObject({
        status: 'expired',
        action_digest: expected,
      });
    } finally {
      clock.advance(-61_000);
    }
    const waited = await api.get(tenant.runtimeKey, `/api/v1/approvals/${approved.id}/status?wait=1`);
    expect(waited.json()).toMatchObject({ status: 'approved', action_digest: expected });

    const { webhooks } = await approvalEffectsOf(t, tenant.tenantId);
    expect(webhooks.map((payload) => [payload.event, (payload.data as { approval: Approval }).approval.action_digest])).toEqual([
      ['approval.approved', expected],
      ['approval.denied', expected],
      ['approval.expired', expected],
    ]);
    const effects = await t.runtime.database.db.select().from(outbox).where(eq(outbox.tenantId, tenant.tenantId));
    const requestedHooks = effects.filter((row) => row.kind === 'webhook' && row.payload.event === 'approval.requested');
    expect(requestedHooks.map((row) => (row.payload.data as { approval: Approval }).approval.action_digest)).toEqual([
      expected,
      expected,
      expected,
    ]);
  });

  it('is computed over {} when evaluate had no context, and changes with the context', async () => {
    const { tenant, agent } = await approvalRequired(t.app);
    const bare = await evaluation(t.app, tenant, action(agent.id));
    const withEmpty = await evaluation(t.app, tenant, { ...action(agent.id), context: {} });
    const withContext = await evaluation(t.app, tenant, { ...action(agent.id), context: { ticket: 'OPS-7' } });
    const digestOf = async (evaluated: { approval_request_id: string | null }) =>
      (await api.get(tenant.runtimeKey, `/api/v1/approvals/${evaluated.approval_request_id}`)).json().data.action_digest;

    expect(await digestOf(bare)).toBe(await actionDigest({ ...action(agent.id), context: {} }));
    expect(await digestOf(bare)).toBe(await actionDigest(action(agent.id)));
    expect(await digestOf(withEmpty)).toBe(await digestOf(bare));
    expect(await digestOf(withContext)).toBe(await actionDigest({ ...action(agent.id), context: { ticket: 'OPS-7' } }));
    expect(await digestOf(withContext)).not.toBe(await digestOf(bare));
  });
});
