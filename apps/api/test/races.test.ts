import { and, eq } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { outbox } from '@agov/db';
import { expectErrorBody } from './assertions.js';
import { openTransaction, waiterOn } from './held-locks.js';
import { type Tenant, useTestApp } from './harness.js';
import {
  APPROVAL_REQUESTED_EVENTS,
  approvalEffectsOf,
  decide,
  evaluatedTrace,
  eventTypes,
  recordOutcome,
  traceOf,
  type Verdict,
  verification,
} from './scenarios.js';

/*
 * Races on one trace, each order forced rather than hoped for. Every write that appends to a
 * chain locks the trace row first (`lockTrace`, SELECT … FOR UPDATE). The test takes that lock
 * from a connection of its own, starts A and waits until A is blocked on it, starts B and waits
 * until B is blocked behind A, then lets go. PostgreSQL hands a contended row lock on in
 * arrival order: the first waiter holds the tuple's heavyweight lock while it sleeps on the
 * holder's transaction, and later waiters queue on that tuple lock (heapam's README.tuplock:
 * "arbitration of who is to get the lock next is provided by LockTuple()"). A waiter for a
 * row A has already updated (the approval request) sleeps on A's transaction. Either way B's
 * blocker is A, which the test checks in pg_blocking_pids, so A's locked section runs first.
 */

const t = useTestApp();
/** The test's own connections: one holds the trace lock, the other watches the waiters. */
let sql: postgres.Sql;
beforeAll(async () => {
  sql = postgres(inject('databaseUrl'), { max: 2, onnotice: () => {} });
});
afterAll(() => sql.end());

const REVIEWER = { approver_name: 'Rita Reviewer' };

/** Takes the trace's row lock as `lockTrace` does and keeps it until `rollback`. */
const holdTraceLock = (traceId: string) =>
  openTransaction(sql, (connection) => connection`select id from traces where id = ${traceId} for update`);

/**
 * Runs `first` and `second` so that `first` takes the trace lock before `second`: both are
 * queued behind the test's lock, in that order, before it is released.
 */
async function inOrder(
  traceId: string,
  first: () => Promise<LightMyRequestResponse>,
  second: () => Promise<LightMyRequestResponse>,
): Promise<[LightMyRequestResponse, LightMyRequestResponse]> {
  const lock = await holdTraceLock(traceId);
  let a: Promise<LightMyRequestResponse> | undefined;
  let b: Promise<LightMyRequestResponse> | undefined;
  try {
    a = first();
    const aPid = await waiterOn(sql, lock.pid);
    b = second();
    // B's blocker is A itself, not only the test's lock: B is queued behind A.
    await waiterOn(sql, aPid);
  } finally {
    await lock.rollback();
  }
  return Promise.all([a, b]);
}

/** The trace's `trace.completed` webhooks in the outbox. */
async function completedWebhooks(tenant: Tenant, traceId: string) {
  const rows = await t.runtime.database.db
    .select({ payload: outbox.payload })
    .from(outbox)
    .where(and(eq(outbox.tenantId, tenant.tenantId), eq(outbox.kind, 'webhook')));
  return rows
    .map((row) => row.payload as { event?: string; data?: { trace?: { id?: string; final_outcome?: string } } })
    .filter((payload) => payload.event === 'trace.completed' && payload.data?.trace?.id === traceId);
}

/** The chain verifies and has exactly `events`; timestamps never go back. */
async function expectChain(tenant: Tenant, traceId: string, events: string[]) {
  const trace = await traceOf(t.app, tenant, traceId);
  expect(eventTypes(trace)).toEqual(events);
  expect(await verification(t.app, tenant, traceId)).toMatchObject({ valid: true, event_count: events.length });
  const times = trace.events.map((e) => Date.parse(e.timestamp));
  expect(times).toEqual([...times].sort((x, y) => x - y));
  expect(trace.completed_at).toBe(trace.events.at(-1)!.timestamp);
  return trace;
}

const APPROVED = [...APPROVAL_REQUESTED_EVENTS, 'approval_granted', 'operation_allowed', 'trace_closed'];
const DENIED = [...APPROVAL_REQUESTED_EVENTS, 'approval_denied', 'operation_denied', 'trace_closed'];

describe('an approval racing an outcome on its trace', () => {
  it('approval first: both succeed, the outcome extends the approved chain', async () => {
    const { tenant, traceId, approvalId } = await evaluatedTrace(t.app, 'approval_required');
    const [approved, recorded] = await inOrder(
      traceId,
      () => decide(t.app, tenant.admin, approvalId!, 'approve', REVIEWER),
      () => recordOutcome(t.app, tenant.runtimeKey, traceId, { status: 'success' }),
    );
    expect(approved.statusCode, approved.body).toBe(200);
    expect(recorded.statusCode, recorded.body).toBe(204);
    const trace = await expectChain(tenant, traceId, [...APPROVED, 'operation_executed', 'trace_closed']);
    expect(trace.final_outcome).toBe('completed_with_approval');
    expect(await completedWebhooks(tenant, traceId)).toEqual([
      expect.objectContaining({ data: { trace: expect.objectContaining({ final_outcome: 'completed_with_approval' }) } }),
    ]);
  });

  it('outcome first: it is refused as still pending, then the approval closes the chain', async () => {
    const { tenant, traceId, approvalId } = await evaluatedTrace(t.app, 'approval_required');
    const [recorded, approved] = await inOrder(
      traceId,
      () => recordOutcome(t.app, tenant.runtimeKey, traceId, { status: 'success' }),
      () => decide(t.app, tenant.admin, approvalId!, 'approve', REVIEWER),
    );
    expectErrorBody(recorded, 409, {
      error: 'conflict',
      message: 'the approval request is still pending',
      details: { final_outcome: 'in_progress' },
      trace_id: traceId,
    });
    expect(approved.statusCode, approved.body).toBe(200);
    const trace = await expectChain(tenant, traceId, APPROVED);
    expect(trace.final_outcome).toBe('completed_with_approval');
    expect(await completedWebhooks(tenant, traceId)).toEqual([]);
    // The refused outcome was not used up: the agent may report now.
    expect((await recordOutcome(t.app, tenant.runtimeKey, traceId, { status: 'success' })).statusCode).toBe(204);
  });
});

describe('two outcomes racing on an allowed trace', () => {
  it.each([
    ['success', 'error', 'operation_executed', 'executed'],
    ['error', 'success', 'operation_failed', 'blocked'],
  ] as const)("%s first: it wins with 204, %s gets 409 naming the first one's outcome", async (first, second, eventType, finalOutcome) => {
    const { tenant, traceId } = await evaluatedTrace(t.app, 'allow');
    const [won, lost] = await inOrder(
      traceId,
      () => recordOutcome(t.app, tenant.runtimeKey, traceId, { status: first }),
      () => recordOutcome(t.app, tenant.runtimeKey, traceId, { status: second }),
    );
    expect(won.statusCode, won.body).toBe(204);
    expectErrorBody(lost, 409, {
      error: 'conflict',
      message: 'an outcome has already been recorded for this trace',
      details: { final_outcome: finalOutcome },
      trace_id: traceId,
    });
    const trace = await expectChain(tenant, traceId, [
      'trace_initiated',
      'identity_resolved',
      'policy_evaluated',
      'operation_allowed',
      eventType,
      'trace_closed',
    ]);
    expect(trace.final_outcome).toBe(finalOutcome);
    expect(await completedWebhooks(tenant, traceId)).toHaveLength(1);
  });
});

describe('an approval racing a denial', () => {
  it.each([
    ['approve', 'deny', APPROVED, 'completed_with_approval', 'approved', 'approval.approved'],
    ['deny', 'approve', DENIED, 'denied', 'denied', 'approval.denied'],
  ] as const)('%s first: it decides the request, %s gets 409', async (first, second, events, finalOutcome, status, webhook) => {
    const { tenant, traceId, approvalId } = await evaluatedTrace(t.app, 'approval_required');
    const verdict = (v: Verdict, name: string) => () => decide(t.app, tenant.admin, approvalId!, v, { approver_name: name });
    const [won, lost] = await inOrder(traceId, verdict(first, 'First Reviewer'), verdict(second, 'Second Reviewer'));
    expect(won.statusCode, won.body).toBe(200);
    expect(won.json().data).toMatchObject({ status, approver_name: 'First Reviewer' });
    expectErrorBody(lost, 409, {
      error: 'conflict',
      message: `approval request is ${status}, not pending`,
      details: { status },
      trace_id: traceId,
    });
    const trace = await expectChain(tenant, traceId, [...events]);
    expect(trace.final_outcome).toBe(finalOutcome);
    expect(trace.events[5]).toMatchObject({ actor_name: `Ada Admin <${tenant.email}>`, metadata: { approver_name: 'First Reviewer' } });
    const effects = await approvalEffectsOf(t, tenant.tenantId);
    expect(effects.webhooks).toEqual([expect.objectContaining({ event: webhook, data: { approval: won.json().data } })]);
  });
});
