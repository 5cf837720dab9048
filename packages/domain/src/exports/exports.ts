import { and, asc, count, eq, gte, lte, sql, type SQL } from 'drizzle-orm';
import { approvalRequests, traceEvents, traces } from '@agov/db';
import type { Principal } from '../access/access.js';
import type { CoreDeps } from '../caches/caches.js';
import { AppError } from '../support/errors.js';
import { presentAuditExportRow, presentTraceExportRow } from '../presenters/traces.js';
import { heldAt, type TimeRange } from '../support/time-range.js';

/** Rows are read in pages of this many, so memory holds one page whatever the export's size. */
const PAGE_SIZE = 1_000;

/** An export that fits the limit: how many rows it has, and its rows page by page. */
export interface Export<Row> {
  total: number;
  pages: AsyncGenerator<Row[]>;
}

/**
 * Counts first and refuses an export over `maxRows` before anything is sent. The range's end
 * is held at the time of the count, so rows recorded while the export streams do not join it.
 * (Rows are stamped just before they commit: one stamped before the count but committed after
 * it can still be streamed without being counted.) Rows come in keyset order: each page starts
 * after the last row of the one before, which costs the same at any depth.
 */
async function boundedExport<Row, Key>(options: {
  what: string;
  maxRows: number;
  count: () => Promise<number>;
  page: (after: Key | null) => Promise<{ rows: Row[]; last: Key | null }>;
}): Promise<Export<Row>> {
  const total = await options.count();
  if (total > options.maxRows) {
    throw new AppError(
      'export_too_large',
      `The export has ${total} ${options.what}; the limit is ${options.maxRows}. Narrow the date range.`,
      {
        total,
        limit: options.maxRows,
      },
    );
  }
  async function* pages(): AsyncGenerator<Row[]> {
    let after: Key | null = null;
    do {
      const { rows, last } = await options.page(after);
      if (rows.length > 0) yield rows;
      after = rows.length === PAGE_SIZE ? last : null;
    } while (after !== null);
  }
  return { total, pages: pages() };
}

export interface TraceExportFilters extends TimeRange {
  agent_id?: string;
}

/** Traces started in the range, oldest first, each with its approval's decision. */
export async function exportTraces(deps: CoreDeps, principal: Principal, filters: TraceExportFilters, maxRows: number) {
  const { db } = deps.database;
  const { from, to } = heldAt(filters, deps.clock.now());
  const conditions: SQL[] = [eq(traces.tenantId, principal.tenantId), gte(traces.startedAt, from), lte(traces.startedAt, to)];
  if (filters.agent_id) conditions.push(eq(traces.agentId, filters.agent_id));
  const where = and(...conditions);
  type Key = { startedAt: Date; id: string };

  return boundedExport({
    what: 'traces',
    maxRows,
    count: async () => (await db.select({ total: count() }).from(traces).where(where))[0]?.total ?? 0,
    page: async (after: Key | null) => {
      const rows = await db
        .select({
          trace: traces,
          approval: { status: approvalRequests.status, approverName: approvalRequests.approverName, decidedAt: approvalRequests.decidedAt },
        })
        .from(traces)
        .leftJoin(approvalRequests, and(eq(approvalRequests.traceId, traces.id), eq(approvalRequests.tenantId, traces.tenantId)))
        .where(
          after
            ? and(where, sql`(${traces.startedAt}, ${traces.id}) > (${after.startedAt.toISOString()}::timestamptz, ${after.id}::uuid)`)
            : where,
        )
        .orderBy(asc(traces.startedAt), asc(traces.id))
        .limit(PAGE_SIZE);
      const last = rows.at(-1)?.trace;
      return {
        rows: rows.map(({ trace, approval }) => presentTraceExportRow(trace, approval)),
        last: last ? { startedAt: last.startedAt, id: last.id } : null,
      };
    },
  });
}

/** Audit events recorded in the range, in time order and chain order within a trace. */
export async function exportAuditEvents(deps: CoreDeps, principal: Principal, range: TimeRange, maxRows: number) {
  const { db } = deps.database;
  const { from, to } = heldAt(range, deps.clock.now());
  const where = and(eq(traceEvents.tenantId, principal.tenantId), gte(traceEvents.timestamp, from), lte(traceEvents.timestamp, to));
  type Key = { timestamp: Date; traceId: string; seq: number };

  return boundedExport({
    what: 'events',
    maxRows,
    count: async () => (await db.select({ total: count() }).from(traceEvents).where(where))[0]?.total ?? 0,
    page: async (after: Key | null) => {
      const rows = await db
        .select({ event: traceEvents, agentId: traces.agentId })
        .from(traceEvents)
        .innerJoin(traces, and(eq(traces.id, traceEvents.traceId), eq(traces.tenantId, traceEvents.tenantId)))
        .where(
          after
            ? and(
                where,
                sql`(${traceEvents.timestamp}, ${traceEvents.traceId}, ${traceEvents.seq}) > (${after.timestamp.toISOString()}::timestamptz, ${after.traceId}::uuid, ${after.seq})`,
              )
            : where,
        )
        .orderBy(asc(traceEvents.timestamp), asc(traceEvents.traceId), asc(traceEvents.seq))
        .limit(PAGE_SIZE);
      const last = rows.at(-1)?.event;
      return {
        rows: rows.map(({ event, agentId }) => presentAuditExportRow(event, agentId)),
        last: last ? { timestamp: last.timestamp, traceId: last.traceId, seq: last.seq } : null,
      };
    },
  });
}
