import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { outbox } from '@agov/db';
import { expectErrorBody, FORBIDDEN, expectInvalidBody } from './assertions.js';
import { useTestApp, keyWithScopes, request, sessionWithRole, signupTenant, TestClock, type Tenant } from './harness.js';
import { decide, evaluatedTrace, eventTypes, recordOutcome, traceOf, verification } from './scenarios.js';

const clock = new TestClock();
const t = useTestApp({ clock });

/** The outbox payload fields these tests look at. */
type Payload = Record<string, unknown> & { event?: string; trace_id?: string; from_seq?: number; data?: { trace?: { id?: string } } };

/** Every decision here is an admin's, under this name. */
const REVIEWER = { approver_name: 'Rita Reviewer' };

/** The outbox rows a trace's outcome writes: its `trace.completed` webhooks and its audit fan-outs. */
async function effectsOf(tenant: Tenant, traceId: string) {
  const rows = await t.runtime.database.db.select().from(outbox).where(eq(outbox.tenantId, tenant.tenantId));
  const payloads = rows.map((row) => ({ kind: row.kind, payload: row.payload as Payload }));
  return {
    all: rows.length,
    completed: payloads
      .filter((r) => r.kind === 'webhook' && r.payload.event === 'trace.completed' && r.payload.data?.trace?.id === traceId)
      .map((r) => r.payload),
    audit: payloads.filter((r) => r.kind === 'audit_events' && r.payload.trace_id === traceId).map((r) => r.payload),
  };
}

/** Why an outcome is refused on a trace with this final outcome (outcomeAfter in the domain). */
const REFUSALS: Record<string, string> = {
  executed: 'an outcome has already been recorded for this trace',
  blocked: 'an outcome has already been recorded for this trace',
  completed_with_approval: 'an outcome has already been recorded for this trace',
  denied: 'the operation was denied; there is no outcome to record',
  expired: 'the approval request expired; there is no outcome to record',
  in_progress: 'the approval request is still pending',
};

/** The 409 every refused outcome answers, naming the trace, its final outcome and why. */
function expectConflict(response: Awaited<ReturnType<typeof recordOutcome>>, traceId: string, finalOutcome: string) {
  expectErrorBody(response, 409, {
    error: 'conflict',
    message: REFUSALS[finalOutcome]!,
    details: { final_outcome: finalOutcome },
    trace_id: traceId,
  });
}

/** Refuses `payload` on the trace, changing neither the trace nor the outbox. */
async function expectRefused(tenant: Tenant, traceId: string, payload: unknown, finalOutcome: string) {
  const before = { trace: await traceOf(t.app, tenant, traceId), effects: await effectsOf(tenant, traceId) };
  const response = await recordOutcome(t.app, tenant.runtimeKey, traceId, payload);
  expectConflict(response, traceId, finalOutcome);
  expect(await traceOf(t.app, tenant, traceId)).toEqual(before.trace);
  expect(await effectsOf(tenant, traceId)).toEqual(before.effects);
  return response;
}

/** A trace whose approval was granted: `completed_with_approval`, 8 events. */
async function approvedTrace() {
  const traced = await evaluatedTrace(t.app, 'approval_required');
  const approved = await decide(t.app, traced.tenant.admin, traced.approvalId!, 'approve', REVIEWER);
  expect(approved.statusCode, approved.body).toBe(200);
  return traced;
}

describe('POST /api/v1/traces/:traceId/outcome', () => {
  it.each([
    ['success', 'operation_executed', 'executed'],
    ['error', 'operation_failed', 'blocked'],
  ] as const)('%s on an allowed trace: 204, %s and trace_closed appended, final outcome %s', async (status, eventType, finalOutcome) => {
    const { tenant, agent, traceId } = await evaluatedTrace(t.app, 'allow');
    clock.advance(1500);
    const metadata = { exit_code: status === 'success' ? 0 : 2, output: { rows: [1, 2] } };
    const response = await recordOutcome(t.app, tenant.runtimeKey, traceId, { status, metadata });
    expect(response.statusCode, response.body).toBe(204);
    expect(response.body).toBe('');

    const trace = await traceOf(t.app, tenant, traceId);
    expect(eventTypes(trace)).toEqual([
      'trace_initiated',
      'identity_resolved',
      'policy_evaluated',
      'operation_allowed',
      eventType,
      'trace_closed',
    ]);
    const [executed, closed] = trace.events.slice(4);
    expect(executed).toMatchObject({ actor_type: 'agent', actor_name: agent.name, status, metadata });
    expect(closed).toMatchObject({ actor_type: 'system', status: finalOutcome, metadata: null });
    expect(trace.final_outcome).toBe(finalOutcome);
    expect(trace.completed_at).toBe(closed!.timestamp);
    expect(executed!.timestamp).toBe(closed!.timestamp);
    expect(trace.duration_ms).toBe(Date.parse(trace.completed_at!) - Date.parse(trace.started_at));
    expect(trace.duration_ms).toBeGreaterThanOrEqual(1500);
    expect(await verification(t.app, tenant, traceId)).toMatchObject({ valid: true, event_count: 6 });

    const effects = await effectsOf(tenant, traceId);
    expect(effects.completed).toEqual([
      {
        id: expect.any(String),
        event: 'trace.completed',
        timestamp: trace.completed_at,
        tenant_id: tenant.tenantId,
        data: { trace: { id: traceId, agent_id: agent.id, agent_name: agent.name, operation: 'write', final_outcome: finalOutcome } },
      },
    ]);
    expect(effects.audit).toContainEqual({ trace_id: traceId, from_seq: 5, to_seq: 6 });
  });

  it('records metadata as null when the body has none', async () => {
    const { tenant, traceId } = await evaluatedTrace(t.app, 'allow');
    expect((await recordOutcome(t.app, tenant.runtimeKey, traceId, { status: 'success' })).statusCode).toBe(204);
    const trace = await traceOf(t.app, tenant, traceId);
    expect(trace.events[4]).toMatchObject({ event_type: 'operation_executed', metadata: null });
  });

  it.each([
    ['success', 'operation_executed', 'completed_with_approval'],
    ['error', 'operation_failed', 'blocked'],
  ] as const)(
    '%s after an approval: appends %s and a second trace_closed, final outcome %s, completion moves',
    async (status, eventType, finalOutcome) => {
      const { tenant, agent, traceId } = await approvedTrace();
      const approved = await traceOf(t.app, tenant, traceId);
      expect(approved.final_outcome).toBe('completed_with_approval');
      clock.advance(5000);

      expect((await recordOutcome(t.app, tenant.runtimeKey, traceId, { status })).statusCode).toBe(204);
      const trace = await traceOf(t.app, tenant, traceId);
      expect(eventTypes(trace).slice(5)).toEqual(['approval_granted', 'operation_allowed', 'trace_closed', eventType, 'trace_closed']);
      expect(trace.events[8]).toMatchObject({ actor_type: 'agent', actor_name: agent.name, status, metadata: null });
      expect(trace.events[9]).toMatchObject({ actor_type: 'system', status: finalOutcome });
      expect(trace.final_outcome).toBe(finalOutcome);
      expect(trace.completed_at).toBe(trace.events[9]!.timestamp);
      expect(Date.parse(trace.completed_at!) - Date.parse(approved.completed_at!)).toBeGreaterThanOrEqual(5000);
      expect(trace.duration_ms).toBe(Date.parse(trace.completed_at!) - Date.parse(trace.started_at));
      expect(await verification(t.app, tenant, traceId)).toMatchObject({ valid: true, event_count: 10 });

      const effects = await effectsOf(tenant, traceId);
      expect(effects.completed).toHaveLength(1);
      expect(effects.completed[0]!.data).toEqual({
        trace: { id: traceId, agent_id: agent.id, agent_name: agent.name, operation: 'write', final_outcome: finalOutcome },
      });
      expect(effects.audit).toContainEqual({ trace_id: traceId, from_seq: 9, to_seq: 10 });
    },
  );
});

describe('refused outcomes: 409 conflict, nothing written', () => {
  it.each([
    ['success', 'executed'],
    ['error', 'blocked'],
  ] as const)('a second outcome after %s on an allowed trace', async (first, finalOutcome) => {
    const { tenant, traceId } = await evaluatedTrace(t.app, 'allow');
    expect((await recordOutcome(t.app, tenant.runtimeKey, traceId, { status: first })).statusCode).toBe(204);
    for (const status of ['success', 'error']) await expectRefused(tenant, traceId, { status }, finalOutcome);
  });

  it('a second outcome after an approval and its outcome', async () => {
    const { tenant, traceId } = await approvedTrace();
    expect((await recordOutcome(t.app, tenant.runtimeKey, traceId, { status: 'success' })).statusCode).toBe(204);
    for (const status of ['success', 'error']) await expectRefused(tenant, traceId, { status }, 'completed_with_approval');
  });

  it('an outcome on a trace denied by evaluate', async () => {
    const { tenant, traceId } = await evaluatedTrace(t.app, 'deny');
    for (const status of ['success', 'error']) await expectRefused(tenant, traceId, { status }, 'denied');
  });

  it('an outcome on a trace whose approval was denied', async () => {
    const { tenant, traceId, approvalId } = await evaluatedTrace(t.app, 'approval_required');
    expect((await decide(t.app, tenant.admin, approvalId!, 'deny', REVIEWER)).statusCode).toBe(200);
    for (const status of ['success', 'error']) await expectRefused(tenant, traceId, { status }, 'denied');
  });

  it('an outcome on a trace whose approval expired', async () => {
    const { tenant, traceId, approvalId } = await evaluatedTrace(t.app, 'approval_required', { max_session_ttl: 60 });
    clock.advance(61_000);
    // A decision after expires_at expires the request on the spot, closing the trace as expired.
    const late = await decide(t.app, tenant.admin, approvalId!, 'approve', REVIEWER);
    const approval = (await request(t.app, tenant.admin, { method: 'GET', url: `/api/v1/approvals/${approvalId}` })).json().data;
    expectErrorBody(late, 409, {
      error: 'conflict',
      message: 'approval request has expired',
      details: { status: 'expired', expires_at: approval.expires_at },
      trace_id: traceId,
    });
    expect((await traceOf(t.app, tenant, traceId)).final_outcome).toBe('expired');
    for (const status of ['success', 'error']) await expectRefused(tenant, traceId, { status }, 'expired');
  });

  it('an outcome while the approval is still pending, which stays decidable', async () => {
    const { tenant, traceId, approvalId } = await evaluatedTrace(t.app, 'approval_required');
    // The refusal's message, "the approval request is still pending", is checked by expectRefused.
    await expectRefused(tenant, traceId, { status: 'success' }, 'in_progress');
    expect((await decide(t.app, tenant.admin, approvalId!, 'approve', REVIEWER)).statusCode).toBe(200);
    expect((await recordOutcome(t.app, tenant.runtimeKey, traceId, { status: 'success' })).statusCode).toBe(204);
  });
});

describe('unknown traces, bad bodies and access', () => {
  it("answers 404 for an unknown id, another tenant's trace and a malformed id", async () => {
    const { tenant, traceId } = await evaluatedTrace(t.app, 'allow');
    const other = await signupTenant(t.app);
    for (const [who, id, message] of [
      [tenant, '00000000-0000-4000-8000-000000000000', 'Trace not found'],
      [other, traceId, 'Trace not found'],
      // A malformed id fails the path's schema, which answers 404 before any lookup.
      [tenant, 'not-a-uuid', 'Resource not found'],
    ] as const) {
      expectErrorBody(await recordOutcome(t.app, who.runtimeKey, id, { status: 'success' }), 404, { error: 'not_found', message });
    }
    expect((await traceOf(t.app, tenant, traceId)).final_outcome).toBe('in_progress');
  });

  it.each([
    ['a missing status', { metadata: {} }, [['status', 'is required']]],
    ['an unknown status', { status: 'done' }, [['status', 'must be equal to one of the allowed values']]],
    [
      'a status that is not a string',
      { status: 1 },
      [
        ['status', 'must be string'],
        ['status', 'must be equal to one of the allowed values'],
      ],
    ],
    ['metadata that is a string', { status: 'success', metadata: 'fine' }, [['metadata', 'must be object']]],
    ['metadata that is an array', { status: 'success', metadata: [1, 2] }, [['metadata', 'must be object']]],
    ['an unknown field', { status: 'success', exit_code: 0 }, [['exit_code', 'is not allowed']]],
  ] as const)('rejects %s with 400, recording nothing', async (_label, payload, problems) => {
    const { tenant, traceId } = await evaluatedTrace(t.app, 'allow');
    expectInvalidBody(await recordOutcome(t.app, tenant.runtimeKey, traceId, payload), problems);
    const trace = await traceOf(t.app, tenant, traceId);
    expect(trace.final_outcome).toBe('in_progress');
    expect(trace.events).toHaveLength(4);
  });

  it('needs traces:write on a key; any session role may record', async () => {
    const { tenant, traceId } = await evaluatedTrace(t.app, 'allow');
    const reader = await keyWithScopes(t.app, tenant, ['traces:read']);
    expectErrorBody(await recordOutcome(t.app, reader, traceId, { status: 'success' }), 403, {
      ...FORBIDDEN,
      details: { required_scope: 'traces:write', scopes: ['traces:read'] },
    });
    const viewer = await sessionWithRole(t.app, tenant, 'viewer');
    expect((await recordOutcome(t.app, viewer, traceId, { status: 'success' })).statusCode).toBe(204);
  });
});

describe('concurrency on one trace', () => {
  it('of 10 simultaneous outcomes exactly one wins; the chain stays valid', async () => {
    const { tenant, traceId } = await evaluatedTrace(t.app, 'allow');
    const statuses = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? 'success' : 'error'));
    const responses = await Promise.all(statuses.map((status) => recordOutcome(t.app, tenant.runtimeKey, traceId, { status })));
    const codes = responses.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 204)).toHaveLength(1);
    expect(codes.filter((c) => c === 409)).toHaveLength(9);

    const trace = await traceOf(t.app, tenant, traceId);
    const winner = statuses[codes.indexOf(204)]!;
    const finalOutcome = winner === 'success' ? 'executed' : 'blocked';
    expect(trace.final_outcome).toBe(finalOutcome);
    expect(eventTypes(trace).slice(4)).toEqual([winner === 'success' ? 'operation_executed' : 'operation_failed', 'trace_closed']);
    for (const refused of responses.filter((r) => r.statusCode === 409)) expectConflict(refused, traceId, finalOutcome);
    expect(await verification(t.app, tenant, traceId)).toMatchObject({ valid: true, event_count: 6 });

    const effects = await effectsOf(tenant, traceId);
    expect(effects.completed).toHaveLength(1);
    expect(effects.audit.filter((a) => a.from_seq === 5)).toEqual([{ trace_id: traceId, from_seq: 5, to_seq: 6 }]);
  });
  // An approval racing an outcome, and two outcomes, in each forced order: races.test.ts.
});
