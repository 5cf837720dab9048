import { describe, expect, it } from 'vitest';
import { expectErrorBody, expectInvalidBody, FORBIDDEN, ISO_TIME, UNAUTHENTICATED } from './assertions.js';
import { client } from './client.js';
import { ALL_TIME, AUDIT_COLUMNS, parseCsv } from './export-format.js';
import { useTestApp, keyWithScopes, sessionWithRole, type Tenant } from './harness.js';
import {
  APPROVAL_REQUESTED_EVENTS,
  approvalEffectsOf,
  approvalRequired,
  approvalSnapshot,
  decide,
  requestApproval,
  subscribeToAuditEvents,
  traceOf,
  type Verdict,
  verification,
} from './scenarios.js';

const t = useTestApp();
const api = client(t);

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

describe('POST /api/v1/approvals/:id/approve and /deny', () => {
  it.each([
    ['approve', 'reviewer', undefined],
    ['deny', 'key', 'Production is frozen.'],
  ] as const)('%s (by %s): decides, extends and closes the chain, records the webhook', async (verdict, by, note) => {
    const expected = OUTCOMES[verdict];
    const { tenant, agent } = await approvalRequired(t.app);
    await subscribeToAuditEvents(t.app, tenant);
    const pending = await requestApproval(t.app, tenant, agent.id);
    const { credential, principal } = await deciderOf(tenant, by);
    const response = await decide(t.app, credential, pending.id, verdict, {
      approver_name: 'Rita Reviewer',
      ...(note ? { decision_note: note } : {}),
    });
    expect(response.statusCode, response.body).toBe(200);
    const decided = response.json().data;
    expect(response.json()).toEqual({
      data: {
        ...pending,
        status: expected.status,
        decided_at: ISO_TIME,
        approver_name: 'Rita Reviewer',
        decision_note: note ?? null,
        votes: [
          {
            decision: verdict,
            principal,
            on_behalf_of: null,
            approver_name: 'Rita Reviewer',
            decision_note: note ?? null,
            at: response.json().data.decided_at,
          },
        ],
      },
    });
    expect(Date.parse(decided.decided_at)).toBeGreaterThanOrEqual(Date.parse(pending.requested_at));

    const trace = await traceOf(t.app, tenant, pending.trace_id);
    expect(trace).toMatchObject({ final_outcome: expected.final, completed_at: decided.decided_at });
    expect(trace.events.map((e) => e.event_type)).toEqual([
      ...APPROVAL_REQUESTED_EVENTS,
      expected.granted,
      expected.operation,
      'trace_closed',
    ]);
    expect(trace.events.slice(5)).toMatchObject([
      {
        actor_type: 'human_reviewer',
        actor_name: principal,
        description: `${verdict === 'approve' ? 'Approved' : 'Denied'} by ${principal}${note ? `: ${note}` : ''}`,
        approval_request_id: pending.id,
        timestamp: decided.decided_at,
        metadata: { approver_name: 'Rita Reviewer', decision_note: note ?? null },
      },
      { actor_type: 'approval_service', approval_request_id: pending.id, timestamp: decided.decided_at },
      { actor_type: 'system', status: expected.final, timestamp: decided.decided_at },
    ]);
    expect(trace.approval_requests).toEqual([
      { id: pending.id, status: expected.status, approver_name: 'Rita Reviewer', decided_at: decided.decided_at },
    ]);
    expect(await verification(t.app, tenant, pending.trace_id)).toMatchObject({ trace_id: pending.trace_id, valid: true, event_count: 8 });

    const { webhooks, audit } = await approvalEffectsOf(t, tenant.tenantId);
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

  it('names the authenticated decider in the trail, whatever approver_name the caller typed', async () => {
    const { tenant, agent } = await approvalRequired(t.app);
    const pending = await requestApproval(t.app, tenant, agent.id);
    const { credential, principal } = await deciderOf(tenant, 'reviewer');
    const forged = { approver_name: 'Chief Security Officer' };
    expect((await decide(t.app, credential, pending.id, 'approve', forged)).statusCode).toBe(200);

    const granted = (await traceOf(t.app, tenant, pending.trace_id)).events[5]!;
    expect(granted).toMatchObject({
      event_type: 'approval_granted',
      actor_name: principal,
      metadata: { approver_name: forged.approver_name },
    });
    const audit = await api.get(tenant.admin, `/api/v1/audit/export?format=csv&${ALL_TIME}`);
    const rows = parseCsv(audit.body, AUDIT_COLUMNS).filter((row) => row.trace_id === pending.trace_id);
    expect(rows.find((row) => row.event_type === 'approval_granted')).toMatchObject({ actor_name: principal });
    expect(audit.body).not.toContain(forged.approver_name);
  });

  it('refuses a second decision with 409 and changes nothing', async () => {
    const { tenant, agent } = await approvalRequired(t.app);
    const pending = await requestApproval(t.app, tenant, agent.id);
    const approved = (await decide(t.app, tenant.admin, pending.id, 'approve', { approver_name: 'Ada Admin' })).json().data;
    const before = await approvalSnapshot(t, tenant, pending);
    for (const verdict of ['approve', 'deny'] as const) {
      const response = await decide(t.app, tenant.admin, pending.id, verdict, { approver_name: 'Someone Else', decision_note: 'too late' });
      expectErrorBody(response, 409, {
        error: 'conflict',
        message: 'approval request is approved, not pending',
        details: { status: 'approved' },
        trace_id: pending.trace_id,
      });
    }
    expect(await approvalSnapshot(t, tenant, pending)).toEqual(before);
    expect((await api.get(tenant.runtimeKey, `/api/v1/approvals/${pending.id}/status`)).json()).toEqual({
      id: pending.id,
      status: 'approved',
      decided_at: approved.decided_at,
      approver_name: 'Ada Admin',
      decision_note: null,
      action_digest: pending.action_digest,
      grant: expect.any(String),
    });
  });

  it.each([
    ['no body', undefined, [['(body)', 'must be object']]],
    ['approver_name missing', { decision_note: 'ok' }, [['approver_name', 'is required']]],
    ['approver_name empty', { approver_name: '' }, [['approver_name', 'must NOT have fewer than 1 characters']]],
    ['approver_name not a string', { approver_name: 42 }, [['approver_name', 'must be string']]],
    [
      'approver_name over 200 characters',
      { approver_name: 'a'.repeat(201) },
      [['approver_name', 'must NOT have more than 200 characters']],
    ],
    ['decision_note not a string', { approver_name: 'Ada', decision_note: 7 }, [['decision_note', 'must be string']]],
    [
      'decision_note over 2000 characters',
      { approver_name: 'Ada', decision_note: 'n'.repeat(2001) },
      [['decision_note', 'must NOT have more than 2000 characters']],
    ],
    ['an unknown field', { approver_name: 'Ada', status: 'approved' }, [['status', 'is not allowed']]],
    [
      'a NUL character in approver_name',
      { approver_name: 'Ada\u0000' },
      [['approver_name', 'must not contain the NUL character (\\u0000)']],
    ],
  ] as const)('rejects %s with 400 and leaves the request pending', async (_label, payload, problems) => {
    const { tenant, agent } = await approvalRequired(t.app);
    const pending = await requestApproval(t.app, tenant, agent.id);
    for (const verdict of ['approve', 'deny'] as const) {
      const response = await decide(t.app, tenant.admin, pending.id, verdict, payload);
      expectInvalidBody(response, problems);
    }
    expect((await api.get(tenant.runtimeKey, `/api/v1/approvals/${pending.id}/status`)).json().status).toBe('pending');
  });

  it('needs approvals:write or a reviewer/admin session to decide, approvals:read or any session to read', async () => {
    const { tenant, agent } = await approvalRequired(t.app);
    const pending = await requestApproval(t.app, tenant, agent.id);
    const before = await approvalSnapshot(t, tenant, pending);
    const viewer = await sessionWithRole(t.app, tenant, 'viewer');
    const readKey = { apiKey: (await keyWithScopes(t.app, tenant, ['approvals:read'])).apiKey };
    expectErrorBody(await decide(t.app, viewer, pending.id, 'approve', { approver_name: 'Vic Viewer' }), 403, FORBIDDEN);
    expectErrorBody(await decide(t.app, readKey, pending.id, 'deny', { approver_name: 'Reader' }), 403, FORBIDDEN);
    expectErrorBody(await decide(t.app, tenant.runtimeKey, pending.id, 'approve', { approver_name: 'Runtime' }), 403, FORBIDDEN);
    expectErrorBody(await decide(t.app, null, pending.id, 'approve', { approver_name: 'Nobody' }), 401, UNAUTHENTICATED);
    expectErrorBody(await api.get(null, '/api/v1/approvals'), 401, UNAUTHENTICATED);
    for (const url of [
      '/api/v1/approvals',
      '/api/v1/approvals/count',
      `/api/v1/approvals/${pending.id}`,
      `/api/v1/approvals/${pending.id}/status`,
    ]) {
      expect((await api.get(viewer, url)).statusCode, url).toBe(200);
      expect((await api.get(readKey, url)).statusCode, url).toBe(200);
    }
    expect(await approvalSnapshot(t, tenant, pending)).toEqual(before);
    expect((await api.get(readKey, `/api/v1/approvals/${pending.id}/status`)).json().status).toBe('pending');
  });

  it('lets exactly one of 20 concurrent decisions win; the other 19 get 409', async () => {
    const { tenant, agent } = await approvalRequired(t.app);
    await subscribeToAuditEvents(t.app, tenant);
    const pending = await requestApproval(t.app, tenant, agent.id);
    const { credential: writer, principal } = await deciderOf(tenant, 'key');
    const verdicts: Verdict[] = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? 'approve' : 'deny'));
    const responses = await Promise.all(
      verdicts.map((verdict, i) => decide(t.app, writer, pending.id, verdict, { approver_name: `Reviewer ${i}` })),
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

    const trace = await traceOf(t.app, tenant, pending.trace_id);
    expect(trace.events.map((e) => e.event_type)).toEqual([
      ...APPROVAL_REQUESTED_EVENTS,
      expected.granted,
      expected.operation,
      'trace_closed',
    ]);
    expect(trace.events[5]).toMatchObject({ actor_name: principal, metadata: { approver_name: `Reviewer ${winner}` } });
    expect(trace.final_outcome).toBe(expected.final);
    expect(await verification(t.app, tenant, pending.trace_id)).toMatchObject({ valid: true, event_count: 8 });
    const { webhooks, audit } = await approvalEffectsOf(t, tenant.tenantId);
    expect(webhooks).toEqual([expect.objectContaining({ event: expected.webhook, data: { approval: decided } })]);
    expect(audit).toHaveLength(2);
    expect((await api.get(tenant.runtimeKey, `/api/v1/approvals/${pending.id}/status`)).json()).toMatchObject({
      status: expected.status,
      approver_name: `Reviewer ${winner}`,
    });
  });
});

/** A credential that may decide, and the name the audit trail must give it (CONTRACT, trust decisions). */
async function deciderOf(tenant: Tenant, by: 'reviewer' | 'key') {
  if (by === 'reviewer') {
    const { cookie, name, email } = await sessionWithRole(t.app, tenant, 'reviewer');
    return { credential: { cookie }, principal: `${name} <${email}>` };
  }
  const key = await keyWithScopes(t.app, tenant, ['approvals:write']);
  return { credential: { apiKey: key.apiKey }, principal: `api-key:${key.name} (${key.prefix})` };
}
