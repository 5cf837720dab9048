import { and, eq } from 'drizzle-orm';
import { traceEvents, traces, type Tx, type TraceRow } from '@agov/db';
import { chainEvents, type NewEvent } from '../audit/chain-events.js';
import type { Effect } from '../outbox/effects.js';

/**
 * Reads a trace and locks its row until the transaction ends. Everything that appends to a
 * chain holds this lock, so appends to one trace are serial and the head never forks.
 */
export async function lockTrace(tx: Tx, tenantId: string, traceId: string): Promise<TraceRow | undefined> {
  const [trace] = await tx
    .select()
    .from(traces)
    .where(and(eq(traces.id, traceId), eq(traces.tenantId, tenantId)))
    .for('update');
  return trace;
}

/**
 * The trace of something written with it in one statement by evaluate (an approval, its
 * grant), locked: it is never absent, so its absence is a broken invariant, not a 404.
 */
export async function lockTraceOf(tx: Tx, owner: { tenantId: string; traceId: string }, what: string): Promise<TraceRow> {
  const trace = await lockTrace(tx, owner.tenantId, owner.traceId);
  if (!trace) throw new Error(`trace ${owner.traceId} of ${what} is missing`);
  return trace;
}

export type TraceChanges = Partial<Pick<TraceRow, 'finalOutcome' | 'completedAt' | 'outcomeRecorded'>>;

/**
 * Appends events to a locked trace's chain and moves its head, with any other changes to
 * the trace, in the caller's transaction. Returns the trace as it now is and the effect that
 * fans the new events out.
 */
export async function appendToTrace(
  tx: Tx,
  trace: TraceRow,
  events: readonly NewEvent[],
  changes: TraceChanges,
  at: Date,
): Promise<{ trace: TraceRow; effect: Effect }> {
  const chain = chainEvents(trace, { seq: trace.eventCount, hash: trace.lastEventHash }, events, at);
  await tx.insert(traceEvents).values(chain.rows);
  const [updated] = await tx
    .update(traces)
    .set({ ...changes, eventCount: chain.head.seq, lastEventHash: chain.head.hash })
    .where(eq(traces.id, trace.id))
    .returning();
  return { trace: updated!, effect: { kind: 'audit_events', traceId: trace.id, fromSeq: trace.eventCount + 1, toSeq: chain.head.seq } };
}
