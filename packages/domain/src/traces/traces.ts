import { and, asc, eq, gte, lte, type SQL } from 'drizzle-orm';
import { approvalRequests, traceEvents, traces, type ApprovalRow, type TraceEventRow, type TraceRow } from '@agov/db';
import type { Principal } from '../access/access.js';
import type { TimeRange } from '../support/time-range.js';
import { verifyChain, type ChainedEvent } from '../audit/hash-chain.js';
import type { CoreDeps } from '../caches/caches.js';
import { notFound } from '../support/errors.js';
import { talliedPage, type Page, type Paged, type TalliedList } from '../support/pagination.js';
import { traceListCounts, traceTotal } from './tallies.js';
import { presentEvent } from '../presenters/traces.js';

export interface TraceFilters extends Partial<TimeRange> {
  agent_id?: string;
  outcome?: TraceRow['finalOutcome'];
}

export async function listTraces(deps: CoreDeps, principal: Principal, filters: TraceFilters, page: Page): Promise<Paged<TraceRow>> {
  const where: SQL[] = [eq(traces.tenantId, principal.tenantId)];
  if (filters.agent_id) where.push(eq(traces.agentId, filters.agent_id));
  if (filters.outcome) where.push(eq(traces.finalOutcome, filters.outcome));
  if (filters.from) where.push(gte(traces.startedAt, filters.from));
  if (filters.to) where.push(lte(traces.startedAt, filters.to));
  const list: TalliedList<typeof traces> = {
    table: traces,
    where,
    time: traces.startedAt,
    id: traces.id,
    total: () => traceTotal(deps, principal.tenantId, filters),
    counts: traceListCounts(principal.tenantId, filters),
  };
  return talliedPage(deps.database, list, page);
}

export interface TraceWithEvents {
  trace: TraceRow;
  events: TraceEventRow[];
  approvals: ApprovalRow[];
}

/** A trace with its events in chain order and its approval requests. */
export async function getTrace(deps: CoreDeps, principal: Principal, traceId: string): Promise<TraceWithEvents> {
  const { db } = deps.database;
  const [[trace], events, approvals] = await Promise.all([
    db
      .select()
      .from(traces)
      .where(and(eq(traces.id, traceId), eq(traces.tenantId, principal.tenantId))),
    db
      .select()
      .from(traceEvents)
      .where(and(eq(traceEvents.traceId, traceId), eq(traceEvents.tenantId, principal.tenantId)))
      .orderBy(asc(traceEvents.seq)),
    db
      .select()
      .from(approvalRequests)
      .where(and(eq(approvalRequests.traceId, traceId), eq(approvalRequests.tenantId, principal.tenantId)))
      .orderBy(asc(approvalRequests.requestedAt)),
  ]);
  if (!trace) throw notFound('Trace');
  return { trace, events, approvals };
}

/**
 * What the hash covers, read back from storage: the event as the API shows it, and its
 * trace's id (audit/README.md). Typed by the chain's fields, so the two cannot drift apart.
 */
const chainedFields = (event: TraceEventRow): ChainedEvent & { integrity_hash: string | null } => ({
  ...presentEvent(event),
  trace_id: event.traceId,
});

export interface Verification {
  traceId: string;
  valid: boolean;
  eventCount: number;
  verifiedAt: Date;
  firstInvalidEventId: string | null;
}

/**
 * Recomputes the trace's hash chain from the stored events and checks that it ends at the
 * head stored on the trace, which also catches events deleted from the end (audit/README.md).
 * Head and events are read from one snapshot: read apart, an append committing in between
 * would look like tampering.
 */
export async function verifyTrace(deps: CoreDeps, principal: Principal, traceId: string): Promise<Verification> {
  const { trace, events } = await deps.database.db.transaction(
    async (tx) => {
      const [found] = await tx
        .select()
        .from(traces)
        .where(and(eq(traces.id, traceId), eq(traces.tenantId, principal.tenantId)));
      if (!found) throw notFound('Trace');
      const chain = await tx
        .select()
        .from(traceEvents)
        .where(and(eq(traceEvents.traceId, traceId), eq(traceEvents.tenantId, principal.tenantId)))
        .orderBy(asc(traceEvents.seq));
      return { trace: found, events: chain };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
  const result = verifyChain(events.map(chainedFields), { eventCount: trace.eventCount, lastEventHash: trace.lastEventHash });
  return {
    traceId,
    valid: result.valid,
    eventCount: events.length,
    verifiedAt: deps.clock.now(),
    firstInvalidEventId: result.firstInvalidEventId,
  };
}
