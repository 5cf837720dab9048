import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../../apps/api/test/harness.js';
import {
  ActionDenied,
  ApprovalExpired,
  ApprovalRejected,
  ApprovalTimeout,
  createClient,
  type GovernanceClient,
  type Permit,
  verifyGrant,
} from '../src/index.js';
import { governedAgent, listen, writeToRepo } from './service.js';

const t = useTestApp();

/** Runs `fn` once an approval is waiting, without holding up the guard that waits for it. */
const whenPending = (fn: (approvalId: string) => Promise<unknown>) => (evaluation: { approval_request_id: string | null }) => {
  if (evaluation.approval_request_id) setTimeout(() => void fn(evaluation.approval_request_id!), 200);
};

async function outcomeOf(client: GovernanceClient, traceId: string) {
  const trace = await client.getTrace(traceId);
  const closing = trace.events.filter((event) => event.event_type === 'operation_executed' || event.event_type === 'operation_failed');
  return {
    final_outcome: trace.final_outcome,
    outcome: closing.map((event) => ({ event_type: event.event_type, metadata: event.metadata })),
  };
}

/** Rejects with what `promise` throws, so a test can assert every field of it. */
async function thrown(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('guard()', () => {
  it('allow: runs the action once, records its success with a summary, returns its result', async () => {
    const { runtime, admin, agentId } = await governedAgent(t, await listen(t), 'allow');
    let traceId = '';
    let runs = 0;
    const result = await runtime.guard(
      writeToRepo(agentId),
      async () => {
        runs += 1;
        return { pushed: 'abc123' };
      },
      { onEvaluated: (evaluation) => (traceId = evaluation.trace_id) },
    );
    expect(result).toEqual({ pushed: 'abc123' });
    expect(runs).toBe(1);
    expect(await outcomeOf(admin, traceId)).toEqual({
      final_outcome: 'executed',
      outcome: [{ event_type: 'operation_executed', metadata: { summary: '{"pushed":"abc123"}' } }],
    });
  });

  it('allow: an action that throws is recorded as failed and its error rethrown', async () => {
    const { runtime, admin, agentId } = await governedAgent(t, await listen(t), 'allow');
    let traceId = '';
    const failure = new Error('push rejected: branch protected');
    const error = await thrown(
      runtime.guard(
        writeToRepo(agentId),
        () => {
          throw failure;
        },
        { onEvaluated: (evaluation) => (traceId = evaluation.trace_id) },
      ),
    );
    expect(error).toBe(failure);
    expect(await outcomeOf(admin, traceId)).toEqual({
      final_outcome: 'blocked',
      outcome: [{ event_type: 'operation_failed', metadata: { error: 'push rejected: branch protected' } }],
    });
  });

  it('deny: throws ActionDenied with the trace and the reason, never runs the action', async () => {
    const { runtime, admin, agentId } = await governedAgent(t, await listen(t), 'deny', { rationale: 'Writes are frozen this week.' });
    let runs = 0;
    const error = await thrown(runtime.guard(writeToRepo(agentId), () => (runs += 1)));
    expect(error).toBeInstanceOf(ActionDenied);
    const denied = error as ActionDenied;
    expect({ name: denied.name, message: denied.message, reason: denied.reason, approvalId: denied.approvalId }).toEqual({
      name: 'ActionDenied',
      message: 'Action denied: Writes are frozen this week.',
      reason: 'Writes are frozen this week.',
      approvalId: null,
    });
    expect(runs).toBe(0);
    expect((await admin.getTrace(denied.traceId)).final_outcome).toBe('denied');
  });

  it('approve: waits for the reviewer, then runs the action and records it on the approved trace', async () => {
    const { admin, runtimeKey, agentId } = await governedAgent(t, await listen(t), 'approval_required');
    const polls: string[] = [];
    const runtime = createClient({
      baseUrl: await listen(t),
      apiKey: runtimeKey,
      fetch: (input, init) => {
        const url = new URL((input as Request).url);
        if (url.pathname.endsWith('/status')) polls.push(url.search);
        return fetch(input, init);
      },
    });
    let traceId = '';
    const result = await runtime.guard(writeToRepo(agentId), () => 'merged', {
      pollIntervalMs: 100,
      onEvaluated: (evaluation) => {
        traceId = evaluation.trace_id;
        whenPending((id) => admin.approveApproval(id, { approver_name: 'Rita Reviewer' }))(evaluation);
      },
    });
    expect(result).toBe('merged');
    // One long poll, held by the service until the decision: no polling.
    expect(polls).toEqual(['?wait=60']);
    expect(await outcomeOf(admin, traceId)).toEqual({
      final_outcome: 'completed_with_approval',
      outcome: [{ event_type: 'operation_executed', metadata: { summary: 'merged' } }],
    });
  });

  it("hands the action its permit: the approval's grant once approved, an allow's when the tenant asks for grants", async () => {
    const baseUrl = await listen(t);
    const approving = await governedAgent(t, baseUrl, 'approval_required');
    const permits: Permit[] = [];
    await approving.runtime.guard(writeToRepo(approving.agentId), (permit) => permits.push(permit), {
      pollIntervalMs: 100,
      onEvaluated: whenPending((id) => approving.admin.approveApproval(id, { approver_name: 'Rita Reviewer' })),
    });
    const approvedKeys = await approving.admin.fetchJwks(approving.tenantId);
    await expect(verifyGrant(permits[0]!.grant!, writeToRepo(approving.agentId), approvedKeys)).resolves.toMatchObject({
      decision: 'approved',
      trace_id: permits[0]!.traceId,
    });

    const allowing = await governedAgent(t, baseUrl, 'allow');
    await allowing.runtime.guard(writeToRepo(allowing.agentId), (permit) => permits.push(permit));
    expect(permits[1]).toEqual({ traceId: expect.any(String), grant: null });
    const saved = await fetch(`${baseUrl}/api/v1/settings/grants`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${allowing.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ issue_on_allow: true }),
    });
    expect(saved.status).toBe(200);
    await allowing.runtime.guard(writeToRepo(allowing.agentId), (permit) => permits.push(permit));
    const allowedKeys = await allowing.admin.fetchJwks(allowing.tenantId);
    await expect(verifyGrant(permits[2]!.grant!, writeToRepo(allowing.agentId), allowedKeys)).resolves.toMatchObject({
      decision: 'allowed',
      trace_id: permits[2]!.traceId,
    });
  });

  it('reject: a reviewer denies, ApprovalRejected carries the note and the reviewer, the action never runs', async () => {
    const { runtime, admin, agentId } = await governedAgent(t, await listen(t), 'approval_required');
    let runs = 0;
    let approvalId = '';
    const error = await thrown(
      runtime.guard(writeToRepo(agentId), () => (runs += 1), {
        pollIntervalMs: 100,
        onEvaluated: whenPending((id) => {
          approvalId = id;
          return admin.denyApproval(id, { approver_name: 'Rita Reviewer', decision_note: 'Not during the release freeze' });
        }),
      }),
    );
    expect(error).toBeInstanceOf(ApprovalRejected);
    const rejected = error as ApprovalRejected;
    expect({
      message: rejected.message,
      reason: rejected.reason,
      approverName: rejected.approverName,
      approvalId: rejected.approvalId,
    }).toEqual({
      message: `Approval ${approvalId} was denied: Not during the release freeze`,
      reason: 'Not during the release freeze',
      approverName: 'Rita Reviewer',
      approvalId,
    });
    expect(runs).toBe(0);
    expect((await admin.getTrace(rejected.traceId)).final_outcome).toBe('denied');
  });

  it('expiry: the request expires undecided, ApprovalExpired, the action never runs', async () => {
    // Due two seconds after it is made: the service ends the long poll then and expires it.
    const { runtime, admin, agentId } = await governedAgent(t, await listen(t), 'approval_required', { max_session_ttl: 2 });
    let runs = 0;
    const started = Date.now();
    const error = await thrown(runtime.guard(writeToRepo(agentId), () => (runs += 1)));
    expect(error).toBeInstanceOf(ApprovalExpired);
    const expired = error as ApprovalExpired;
    expect(expired.reason).toBe('the approval request expired before anyone decided');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(runs).toBe(0);
    expect((await admin.getTrace(expired.traceId)).final_outcome).toBe('expired');
    expect((await admin.getApprovalStatus(expired.approvalId!)).status).toBe('expired');
  });

  it('timeout: nobody decides within the time limit, ApprovalTimeout, the request stays pending', async () => {
    const { runtime, admin, agentId } = await governedAgent(t, await listen(t), 'approval_required');
    let runs = 0;
    const started = Date.now();
    const error = await thrown(runtime.guard(writeToRepo(agentId), () => (runs += 1), { timeoutMs: 1_500, pollIntervalMs: 200 }));
    expect(error).toBeInstanceOf(ApprovalTimeout);
    const timedOut = error as ApprovalTimeout;
    expect(timedOut.reason).toBe('no decision within 1500 ms');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
    expect(runs).toBe(0);
    expect((await admin.getApprovalStatus(timedOut.approvalId!)).status).toBe('pending');
  });

  it('abort: aborting while waiting throws an AbortError and the action never runs', async () => {
    const { runtime, admin, agentId } = await governedAgent(t, await listen(t), 'approval_required');
    const controller = new AbortController();
    let runs = 0;
    let approvalId = '';
    const error = await thrown(
      runtime.guard(writeToRepo(agentId), () => (runs += 1), {
        signal: controller.signal,
        pollIntervalMs: 100,
        onEvaluated: whenPending(async (id) => {
          approvalId = id;
          controller.abort();
        }),
      }),
    );
    expect((error as Error).name).toBe('AbortError');
    // Approved after the abort: the guard has given up, so the action still never runs.
    await admin.approveApproval(approvalId, { approver_name: 'Rita Reviewer' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(runs).toBe(0);
  });

  it('an already aborted signal evaluates nothing', async () => {
    const { runtime, admin, agentId } = await governedAgent(t, await listen(t), 'allow');
    const error = await thrown(runtime.guard(writeToRepo(agentId), () => 1, { signal: AbortSignal.abort() }));
    expect((error as Error).name).toBe('AbortError');
    expect((await admin.api.GET('/api/v1/traces', { params: { query: { agent_id: agentId, limit: 20, offset: 0 } } })).data?.data).toEqual(
      [],
    );
  });
});
