import type { Principal } from '../access/access.js';
import type { NewEvent } from '../audit/chain-events.js';
import type { CoreDeps } from '../caches/caches.js';
import { AppError, notFound } from '../support/errors.js';
import { ACTORS } from '../audit/chain-events.js';
import { recordEffects } from '../outbox/record.js';
import { appendToTrace, lockTrace } from './chain.js';
import type { TraceRow } from '@agov/db';

export type OutcomeStatus = 'success' | 'error';

export interface OutcomeInput {
  status: OutcomeStatus;
  metadata?: Record<string, unknown> | null;
}

type FinalOutcome = TraceRow['finalOutcome'];

/**
 * The trace's final outcome once the agent reports, per the CONTRACT: success is
 * `completed_with_approval` after an approval and `executed` otherwise; error is `blocked`.
 * One outcome per trace, and none on a trace denied, expired or still awaiting approval.
 */
export function outcomeAfter(
  trace: Pick<TraceRow, 'finalOutcome' | 'decision' | 'outcomeRecorded'>,
  status: OutcomeStatus,
): FinalOutcome | { refused: string } {
  const recorded = { refused: 'an outcome has already been recorded for this trace' };
  if (trace.outcomeRecorded) return recorded;
  switch (trace.finalOutcome) {
    case 'denied':
      return { refused: 'the operation was denied; there is no outcome to record' };
    case 'expired':
      return { refused: 'the approval request expired; there is no outcome to record' };
    case 'in_progress':
      // An approval_required trace leaves in_progress when its request is decided or expires.
      if (trace.decision === 'approval_required') return { refused: 'the approval request is still pending' };
      return status === 'success' ? 'executed' : 'blocked';
    case 'completed_with_approval':
      return status === 'success' ? 'completed_with_approval' : 'blocked';
    case 'executed':
    case 'blocked':
      return recorded;
  }
}

/**
 * Records what happened when the agent acted: `operation_executed` or `operation_failed`,
 * then `trace_closed`, on the locked trace; the final outcome and `completed_at` move, and
 * `trace.completed` is recorded. Concurrent outcomes queue on the trace lock: one wins.
 */
export async function recordOutcome(deps: CoreDeps, principal: Principal, traceId: string, input: OutcomeInput): Promise<TraceRow> {
  return deps.database.db.transaction(async (tx) => {
    const trace = await lockTrace(tx, principal.tenantId, traceId);
    if (!trace) throw notFound('Trace');
    const finalOutcome = outcomeAfter(trace, input.status);
    if (typeof finalOutcome !== 'string') {
      throw new AppError('conflict', finalOutcome.refused, { final_outcome: trace.finalOutcome }, trace.id);
    }
    const now = deps.clock.now();
    const { trace: closed, effect } = await appendToTrace(
      tx,
      trace,
      outcomeEvents(trace, input, finalOutcome),
      { finalOutcome, completedAt: now, outcomeRecorded: true },
      now,
    );
    const completed = {
      trace: {
        id: closed.id,
        agent_id: closed.agentId,
        agent_name: closed.agentName,
        operation: closed.requestedOperation,
        final_outcome: closed.finalOutcome,
      },
    };
    await recordEffects(tx, principal.tenantId, [effect, { kind: 'webhook', event: 'trace.completed', data: completed }], now);
    return closed;
  });
}

function outcomeEvents(trace: TraceRow, { status, metadata }: OutcomeInput, finalOutcome: FinalOutcome): NewEvent[] {
  const succeeded = status === 'success';
  const action = `${trace.requestedOperation} on ${trace.targetIntegration} (${trace.resourceScope})`;
  return [
    {
      event_type: succeeded ? 'operation_executed' : 'operation_failed',
      actor_type: 'agent',
      actor_name: trace.agentName,
      description: `${succeeded ? 'Executed' : 'Failed to execute'} ${action}`,
      status,
      policy_version: trace.policyVersion,
      metadata: metadata ?? null,
    },
    {
      event_type: 'trace_closed',
      actor_type: 'system',
      actor_name: ACTORS.system,
      description: `Trace closed: ${finalOutcome}`,
      status: finalOutcome,
    },
  ];
}
