import { randomUUID } from 'node:crypto';
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outbox } from '@agov/db';
import { expireApproval, expireDueApprovals } from '@agov/domain';
import { expectError, fieldsOf } from './assertions.js';
import { action, createAgent, createPolicy } from './fixtures.js';
import {
  createTestApp,
  keyWithScopes,
  request,
  sessionWithRole,
  signupTenant,
  TestClock,
  type Credential,
  type Tenant,
  type TestApp,
} from './harness.js';

// One app whose clock the expiry tests move forward; every test makes its own tenant.
const clock = new TestClock();
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ clock });
});
afterAll(() => t.close());

type Verdict = 'approve' | 'deny';
type Approval = Record<string, unknown> & { id: string; trace_id: string; agent_id: string; requested_at: string };
type Event = Record<string, unknown> & { event_type: string };

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const RATIONALE = 'Repository writes need a human reviewer.';
/** The events evaluate records for an approval_required decision. */
const EVALUATED = ['trace_initiated', 'identity_resolved', 'policy_evaluated', 'sensitive_operation_detected', 'approval_requested'];
/** What each verdict does, per the spec's state tables. */
const OUTCOMES = {
  approve: {
    status: 'approved',
    granted: 'approval_granted',
    operation: 'operation_allowed',
    final: 'completed_with_approval',
    webhook: 'approval.approved',
  },
  deny: { status: 'denied', granted: 'approval_denied', operation: 'operation_denied', final: 'denied', webhook: 'approval.denied' },
} as const;

const get = (credential: Credential, url: string) => request(t.app, credential, { method: 'GET', url });
const decide = (credential: Credential, id: string, verdict: Verdict, payload?: unknown) =>
  request(t.app, credential, {
    method: 'POST',
    url: `/api/v1/approvals/${id}/${verdict}`,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
const ids = (response: { json(): { data: { id: string }[] } }) => response.json().data.map((item) => item.id);

/** A fresh tenant whose agent needs a human for the fixture action. */
async function approvalSetup(rule: Record<string, unknown> = {}) {
  const tenant = await signupTenant(t.app);
  const agent = await createAgent(t.app, tenant.admin);
  await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'approval_required', rationale: RATIONALE, ...rule });
  return { tenant, agent };
}

/** Evaluates the fixture action and returns the pending request as the list shows it. */
async function requestApproval(tenant: Tenant, agentId: string, context?: Record<string, unknown>): Promise<Approval> {
  const payload = { ...action(agentId), ...(context ? { context } : {}) };
  const evaluated = await request(t.app, tenant.runtimeKey, { method: 'POST', url: '/api/v1/evaluate', payload });
  expect(evaluated.json().decision, evaluated.body).toBe('approval_required');
  const id = evaluated.json().approval_request_id as string;
  const listed = (await get(tenant.runtimeKey, '/api/v1/approvals?limit=100')).json().data as Approval[];
  const approval = listed.find((item) => item.id === id);
  expect(approval).toBeDefined();
  return approval!;
}

const traceOf = async (tenant: Tenant, traceId: string) =>
  (await get(tenant.runtimeKey, `/api/v1/traces/${traceId}`)).json() as Record<string, unknown> & {
    events: Event[];
    completed_at: string | null;
  };
const verified = async (tenant: Tenant, traceId: string) => (await get(tenant.runtimeKey, `/api/v1/traces/${traceId}/verify`)).json();

/** The tenant's outbox: approval webhooks after approval.requested, audit fan-outs, and the row count. */
async function effectsOf(tenantId: string) {
  const rows = await t.runtime.database.db.select().from(outbox).where(eq(outbox.tenantId, tenantId)).orderBy(asc(outbox.createdAt));
  return {
    webhooks: rows
      .filter((row) => row.kind === 'webhook' && /^approval\.(approved|denied|expired)$/.test(String(row.payload.event)))
      .map((row) => row.payload),
    audit: rows
      .filter((row) => row.kind === 'audit_events')
      .map((row) => row.payload)
      .sort((a, b) => Number(a.from_seq) - Number(b.from_seq)),
    total: rows.length,
  };
}

/** What must not move when a call is refused: the chain length and the outbox. */
async function snapshot(tenant: Tenant, approval: Approval) {
  const trace = await traceOf(tenant, approval.trace_id);
  return { events: trace.events.length, finalOutcome: trace.final_outcome, outbox: (await effectsOf(tenant.tenantId)).total };
}

/** The end state of an expired request, however it expired (sweep or refused late decision). */
async function expectExpired(tenant: Tenant, pending: Approval) {
  // The list never expires anything itself, so it shows what the expiry wrote.
  const listed = (await get(tenant.runtimeKey, `/api/v1/approvals?agent_id=${pending.agent_id}`)).json().data as Approval[];
  expect(listed.find((item) => item.id === pending.id)).toEqual({ ...pending, status: 'expired' });
  const trace = await traceOf(tenant, pending.trace_id);
  expect(trace).toMatchObject({ final_outcome: 'expired', completed_at: ISO });
  expect(trace.events.map((e) => e.event_type)).toEqual([...EVALUATED, 'trace_closed']);
  expect(trace.events[5]).toMatchObject({
    actor_type: 'system',
    status: 'expired',
    approval_request_id: pending.id,
    timestamp: trace.completed_at,
  });
  expect(trace.approval_requests).toEqual([{ id: pending.id, status: 'expired', approver_name: null, decided_at: null }]);
  expect(await verified(tenant, pending.trace_id)).toMatchObject({ valid: true, event_count: 6 });
  const { webhooks, audit } = await effectsOf(tenant.tenantId);
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

describe('GET /api/v1/approvals and /count', () => {
  it('returns exactly the spec fields of a pending request', async () => {
    const { tenant, agent } = await approvalSetup();
    const evaluated = await request(t.app, tenant.runtimeKey, {
      method: 'POST',
      url: '/api/v1/evaluate',
      payload: { ...action(agent.id), context: { ticket: 'OPS-7', amount: 12 } },
    });
    const { approval_request_id: id, trace_id: traceId } = evaluated.json();
    const response = await get(tenant.runtimeKey, '/api/v1/approvals');
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
          flag_reason: RATIONALE,
          status: 'pending',
          context_snapshot: { ticket: 'OPS-7', amount: 12 },
          expires_at: ISO,
          requested_at: ISO,
          decided_at: null,
          approver_name: null,
          decision_note: null,
        },
      ],
      pagination: { total: 1, limit: 20, offset: 0 },
    });
    const [item] = response.json().data;
    // No max_session_ttl on the rule: the tenant default of 86400 s.
    expect(Date.parse(item.expires_at) - Date.parse(item.requested_at)).toBe(86_400_000);
  });

  it('filters by status and agent, pages newest first, and counts, within the tenant only', async () => {
    const { tenant, agent: first } = await approvalSetup();
    const second = await createAgent(t.app, tenant.admin, { name: 'deploy-bot' });
    await createPolicy(t.app, tenant.admin, second.id, { policy_effect: 'approval_required' });
    const created: Approval[] = [];
    for (const agentId of [first.id, first.id, first.id, second.id]) {
      created.push(await requestApproval(tenant, agentId));
      clock.advance(5); // distinct requested_at, so the order is the creation order reversed
    }
    const [a1, a2, a3, b1] = created as [Approval, Approval, Approval, Approval];
    expect((await decide(tenant.admin, a1.id, 'approve', { approver_name: 'Ada' })).statusCode).toBe(200);
    expect((await decide(tenant.admin, a2.id, 'deny', { approver_name: 'Ada' })).statusCode).toBe(200);
    const other = await approvalSetup();
    const foreign = await requestApproval(other.tenant, other.agent.id);

    const list = (query = '') => get(tenant.runtimeKey, `/api/v1/approvals${query}`);
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
      const response = await get(who.runtimeKey, `/api/v1/approvals/count${query}`);
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
    expect(ids(await get(other.tenant.runtimeKey, '/api/v1/approvals'))).toEqual([foreign.id]);
  });

  it.each(['status=open', 'limit=101', 'limit=0', 'offset=-1', 'agent_id=agent-1'])('rejects ?%s with 400', async (query) => {
    const tenant = await signupTenant(t.app);
    expectError(await get(tenant.runtimeKey, `/api/v1/approvals?${query}`), 400, 'validation_error');
  });

  it('rejects an unknown status on count with 400', async () => {
    const tenant = await signupTenant(t.app);
    expectError(await get(tenant.runtimeKey, '/api/v1/approvals/count?status=open'), 400, 'validation_error');
  });
});

describe('GET /api/v1/approvals/:id and /status', () => {
  it('returns the request with a summary of its agent and its trace', async () => {
    const { tenant, agent } = await approvalSetup();
    const pending = await requestApproval(tenant, agent.id);
    const viewer = await sessionWithRole(t.app, tenant, 'viewer');
    const response = await get(viewer, `/api/v1/approvals/${pending.id}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      data: {
        ...pending,
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
    const { tenant, agent } = await approvalSetup();
    const pending = await requestApproval(tenant, agent.id);
    const poll = () => get(tenant.runtimeKey, `/api/v1/approvals/${pending.id}/status`);
    expect((await poll()).json()).toEqual({
      id: pending.id,
      status: 'pending',
      decided_at: null,
      approver_name: null,
      decision_note: null,
    });
    const denied = (
      await decide(tenant.admin, pending.id, 'deny', { approver_name: 'Rita Reviewer', decision_note: 'Not this week.' })
    ).json().data;
    const response = await poll();
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      id: pending.id,
      status: 'denied',
      decided_at: denied.decided_at,
      approver_name: 'Rita Reviewer',
      decision_note: 'Not this week.',
    });
    const detail = (await get(tenant.runtimeKey, `/api/v1/approvals/${pending.id}`)).json().data;
    expect(detail).toMatchObject({
      status: 'denied',
      trace: { final_outcome: 'denied', completed_at: denied.decided_at, duration_ms: expect.any(Number), event_count: 8 },
    });
  });

  it("answers 404 for an unknown id, another tenant's id and a malformed id", async () => {
    const { tenant, agent } = await approvalSetup();
    const foreign = await requestApproval(tenant, agent.id);
    const other = await signupTenant(t.app);
    for (const id of [randomUUID(), foreign.id, 'not-a-uuid']) {
      for (const suffix of ['', '/status']) expectError(await get(other.runtimeKey, `/api/v1/approvals/${id}${suffix}`), 404, 'not_found');
      for (const verdict of ['approve', 'deny'] as const)
        expectError(await decide(other.admin, id, verdict, { approver_name: 'Mallory' }), 404, 'not_found');
    }
    // Nothing the other tenant did touched the request.
    expect((await get(tenant.runtimeKey, `/api/v1/approvals/${foreign.id}/status`)).json().status).toBe('pending');
  });
});

describe('POST /api/v1/approvals/:id/approve and /deny', () => {
  it.each([
    ['approve', 'reviewer', undefined],
    ['deny', 'key', 'Production is frozen.'],
  ] as const)('%s (by %s): decides, extends and closes the chain, records the webhook', async (verdict, by, note) => {
    const expected = OUTCOMES[verdict];
    const { tenant, agent } = await approvalSetup();
    const pending = await requestApproval(tenant, agent.id);
    const credential =
      by === 'reviewer'
        ? await sessionWithRole(t.app, tenant, 'reviewer')
        : { apiKey: (await keyWithScopes(t.app, tenant, ['approvals:write'])).apiKey };
    const response = await decide(credential, pending.id, verdict, {
      approver_name: 'Rita Reviewer',
      ...(note ? { decision_note: note } : {}),
    });
    expect(response.statusCode, response.body).toBe(200);
    const decided = response.json().data;
    expect(response.json()).toEqual({
      data: { ...pending, status: expected.status, decided_at: ISO, approver_name: 'Rita Reviewer', decision_note: note ?? null },
    });
    expect(Date.parse(decided.decided_at)).toBeGreaterThanOrEqual(Date.parse(pending.requested_at));

    const trace = await traceOf(tenant, pending.trace_id);
    expect(trace).toMatchObject({ final_outcome: expected.final, completed_at: decided.decided_at });
    expect(trace.events.map((e) => e.event_type)).toEqual([...EVALUATED, expected.granted, expected.operation, 'trace_closed']);
    expect(trace.events.slice(5)).toMatchObject([
      { actor_type: 'human_reviewer', actor_name: 'Rita Reviewer', approval_request_id: pending.id, timestamp: decided.decided_at },
      { actor_type: 'approval_service', approval_request_id: pending.id, timestamp: decided.decided_at },
      { actor_type: 'system', status: expected.final, timestamp: decided.decided_at },
    ]);
    expect(trace.approval_requests).toEqual([
      { id: pending.id, status: expected.status, approver_name: 'Rita Reviewer', decided_at: decided.decided_at },
    ]);
    expect(await verified(tenant, pending.trace_id)).toMatchObject({ trace_id: pending.trace_id, valid: true, event_count: 8 });

    const { webhooks, audit } = await effectsOf(tenant.tenantId);
    expect(webhooks).toEqual([
      {
        id: expect.any(String),
        event: expected.webhook,
        timestamp: decided.decided_at,
        tenant_id: tenant.tenantId,
        data: { approval: decided },
      },
    ]);
    expect(audit).toEqual([
      { trace_id: pending.trace_id, from_seq: 1, to_seq: 5 },
      { trace_id: pending.trace_id, from_seq: 6, to_seq: 8 },
    ]);
  });

  it('refuses a second decision with 409 and changes nothing', async () => {
    const { tenant, agent } = await approvalSetup();
    const pending = await requestApproval(tenant, agent.id);
    const approved = (await decide(tenant.admin, pending.id, 'approve', { approver_name: 'Ada Admin' })).json().data;
    const before = await snapshot(tenant, pending);
    for (const verdict of ['approve', 'deny'] as const) {
      const response = await decide(tenant.admin, pending.id, verdict, { approver_name: 'Someone Else', decision_note: 'too late' });
      expectError(response, 409, 'conflict');
      expect(response.json().details).toEqual({ status: 'approved' });
    }
    expect(await snapshot(tenant, pending)).toEqual(before);
    expect((await get(tenant.runtimeKey, `/api/v1/approvals/${pending.id}/status`)).json()).toEqual({
      id: pending.id,
      status: 'approved',
      decided_at: approved.decided_at,
      approver_name: 'Ada Admin',
      decision_note: null,
    });
  });

  it.each([
    ['no body', undefined, []],
    ['approver_name missing', { decision_note: 'ok' }, ['approver_name']],
    ['approver_name empty', { approver_name: '' }, ['approver_name']],
    ['approver_name not a string', { approver_name: 42 }, ['approver_name']],
    ['approver_name over 200 characters', { approver_name: 'a'.repeat(201) }, ['approver_name']],
    ['decision_note not a string', { approver_name: 'Ada', decision_note: 7 }, ['decision_note']],
    ['decision_note over 2000 characters', { approver_name: 'Ada', decision_note: 'n'.repeat(2001) }, ['decision_note']],
    ['an unknown field', { approver_name: 'Ada', status: 'approved' }, ['status']],
    ['a NUL character in approver_name', { approver_name: 'Ada\u0000' }, []],
  ])('rejects %s with 400 and leaves the request pending', async (_label, payload, fields) => {
    const { tenant, agent } = await approvalSetup();
    const pending = await requestApproval(tenant, agent.id);
    for (const verdict of ['approve', 'deny'] as const) {
      const response = await decide(tenant.admin, pending.id, verdict, payload);
      expectError(response, 400, 'validation_error');
      if (fields.length > 0) expect(fieldsOf(response)).toEqual(fields);
    }
    expect((await get(tenant.runtimeKey, `/api/v1/approvals/${pending.id}/status`)).json().status).toBe('pending');
  });

  it('needs approvals:write or a reviewer/admin session to decide, approvals:read or any session to read', async () => {
    const { tenant, agent } = await approvalSetup();
    const pending = await requestApproval(tenant, agent.id);
    const before = await snapshot(tenant, pending);
    const viewer = await sessionWithRole(t.app, tenant, 'viewer');
    const readKey = { apiKey: (await keyWithScopes(t.app, tenant, ['approvals:read'])).apiKey };
    expectError(await decide(viewer, pending.id, 'approve', { approver_name: 'Vic Viewer' }), 403, 'forbidden');
    expectError(await decide(readKey, pending.id, 'deny', { approver_name: 'Reader' }), 403, 'forbidden');
    expectError(await decide(tenant.runtimeKey, pending.id, 'approve', { approver_name: 'Runtime' }), 403, 'forbidden');
    expectError(await decide(null, pending.id, 'approve', { approver_name: 'Nobody' }), 401, 'unauthorized');
    expectError(await get(null, '/api/v1/approvals'), 401, 'unauthorized');
    for (const url of [
      '/api/v1/approvals',
      '/api/v1/approvals/count',
      `/api/v1/approvals/${pending.id}`,
      `/api/v1/approvals/${pending.id}/status`,
    ]) {
      expect((await get(viewer, url)).statusCode, url).toBe(200);
      expect((await get(readKey, url)).statusCode, url).toBe(200);
    }
    expect(await snapshot(tenant, pending)).toEqual(before);
    expect((await get(readKey, `/api/v1/approvals/${pending.id}/status`)).json().status).toBe('pending');
  });

  it('lets exactly one of 20 concurrent decisions win; the other 19 get 409', async () => {
    const { tenant, agent } = await approvalSetup();
    const pending = await requestApproval(tenant, agent.id);
    const writer = { apiKey: (await keyWithScopes(t.app, tenant, ['approvals:write'])).apiKey };
    const verdicts: Verdict[] = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? 'approve' : 'deny'));
    const responses = await Promise.all(
      verdicts.map((verdict, i) => decide(writer, pending.id, verdict, { approver_name: `Reviewer ${i}` })),
    );

    const winners = responses.flatMap((response, i) => (response.statusCode === 200 ? [i] : []));
    expect(winners).toHaveLength(1);
    const winner = winners[0]!;
    const expected = OUTCOMES[verdicts[winner]!];
    const decided = responses[winner]!.json().data;
    expect(decided).toMatchObject({ status: expected.status, approver_name: `Reviewer ${winner}` });
    const losers = responses.filter((_, i) => i !== winner);
    expect(losers.map((response) => response.statusCode)).toEqual(Array(19).fill(409));
    for (const response of losers) expect(response.json()).toMatchObject({ error: 'conflict', details: { status: expected.status } });

    const trace = await traceOf(tenant, pending.trace_id);
    expect(trace.events.map((e) => e.event_type)).toEqual([...EVALUATED, expected.granted, expected.operation, 'trace_closed']);
    expect(trace.events[5]).toMatchObject({ actor_name: `Reviewer ${winner}` });
    expect(trace.final_outcome).toBe(expected.final);
    expect(await verified(tenant, pending.trace_id)).toMatchObject({ valid: true, event_count: 8 });
    const { webhooks, audit } = await effectsOf(tenant.tenantId);
    expect(webhooks).toEqual([expect.objectContaining({ event: expected.webhook, data: { approval: decided } })]);
    expect(audit).toHaveLength(2);
    expect((await get(tenant.runtimeKey, `/api/v1/approvals/${pending.id}/status`)).json()).toMatchObject({
      status: expected.status,
      approver_name: `Reviewer ${winner}`,
    });
  });
});

describe('expiry', () => {
  it('the sweep expires an overdue request once: approval, trace, event and webhook', async () => {
    const { tenant, agent } = await approvalSetup({ max_session_ttl: 1 });
    const pending = await requestApproval(tenant, agent.id);
    expect(Date.parse(pending.expires_at as string) - Date.parse(pending.requested_at)).toBe(1_000);
    clock.advance(2_000);
    // Overdue but not yet swept: still pending in the list.
    expect((await get(tenant.runtimeKey, `/api/v1/approvals?status=pending`)).json().data.map((a: Approval) => a.id)).toEqual([pending.id]);

    // Global across tenants, so at least ours.
    expect(await expireDueApprovals(t.runtime.deps)).toBeGreaterThanOrEqual(1);
    await expectExpired(tenant, pending);

    const before = await snapshot(tenant, pending);
    await expireDueApprovals(t.runtime.deps);
    expect(await expireApproval(t.runtime.deps, tenant.tenantId, pending.id)).toBe(false);
    expect(await snapshot(tenant, pending)).toEqual(before);
    await expectExpired(tenant, pending);
    expect((await get(tenant.runtimeKey, '/api/v1/approvals/count?status=expired')).json()).toEqual({ count: 1 });
  });

  it('does not expire a request before its expires_at', async () => {
    const { tenant, agent } = await approvalSetup({ max_session_ttl: 60 });
    const pending = await requestApproval(tenant, agent.id);
    await expireDueApprovals(t.runtime.deps);
    expect(await expireApproval(t.runtime.deps, tenant.tenantId, pending.id)).toBe(false);
    expect((await get(tenant.runtimeKey, `/api/v1/approvals/${pending.id}/status`)).json().status).toBe('pending');
    expect((await decide(tenant.admin, pending.id, 'approve', { approver_name: 'Ada Admin' })).statusCode).toBe(200);
  });

  it('refuses a decision after expires_at with 409 and expires the request on the spot, once', async () => {
    const { tenant, agent } = await approvalSetup({ max_session_ttl: 1 });
    const pending = await requestApproval(tenant, agent.id);
    clock.advance(2_000);
    const response = await decide(tenant.admin, pending.id, 'approve', { approver_name: 'Ada Admin' });
    expectError(response, 409, 'conflict');
    expect(response.json()).toMatchObject({
      message: 'approval request has expired',
      details: { status: 'expired' },
      trace_id: pending.trace_id,
    });
    await expectExpired(tenant, pending);

    const before = await snapshot(tenant, pending);
    const again = await decide(tenant.admin, pending.id, 'deny', { approver_name: 'Ada Admin' });
    expectError(again, 409, 'conflict');
    expect(again.json().details).toMatchObject({ status: 'expired' });
    expect(await expireApproval(t.runtime.deps, tenant.tenantId, pending.id)).toBe(false);
    expect(await snapshot(tenant, pending)).toEqual(before);
    await expectExpired(tenant, pending);
  });

  it('expires an overdue request exactly once under concurrent late decisions and sweeps', async () => {
    const { tenant, agent } = await approvalSetup({ max_session_ttl: 1 });
    const pending = await requestApproval(tenant, agent.id);
    clock.advance(2_000);
    const calls = Array.from({ length: 10 }, (_, i) =>
      decide(tenant.admin, pending.id, i % 2 === 0 ? 'approve' : 'deny', { approver_name: `Late ${i}` }),
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
    const { tenant, agent } = await approvalSetup({ max_session_ttl: 1 });
    const polled = await requestApproval(tenant, agent.id);
    clock.advance(2_000);
    const status = await get(tenant.runtimeKey, `/api/v1/approvals/${polled.id}/status`);
    expect(status.statusCode).toBe(200);
    expect(status.json()).toEqual({ id: polled.id, status: 'expired', decided_at: null, approver_name: null, decision_note: null });
    await expectExpired(tenant, polled);

    const { tenant: second, agent: secondAgent } = await approvalSetup({ max_session_ttl: 1 });
    const viewed = await requestApproval(second, secondAgent.id);
    clock.advance(2_000);
    const detail = (await get(second.runtimeKey, `/api/v1/approvals/${viewed.id}`)).json().data;
    expect(detail).toMatchObject({
      status: 'expired',
      decided_at: null,
      trace: { final_outcome: 'expired', event_count: 6, completed_at: ISO },
    });
    await expectExpired(second, viewed);
  });
});
