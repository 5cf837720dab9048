import { getTrace, listTraces, presentEvent, presentTraceListItem, presentTraceRecord, verifyTrace } from '@agov/domain';
import { ACCESS } from '../../access.js';
import { PagedList } from '../../schemas/common.js';
import { TraceDetail, TraceIdParams, TraceListItem, TraceListQuery, Verification } from '../../schemas/traces.js';
import type { Routes } from '../types.js';

export const traceRoutes: Routes = async (app, { deps }) => {
  const config = { access: ACCESS.tracesRead };
  const tags = ['traces'];

  app.get('/traces', { config, schema: { tags, querystring: TraceListQuery, response: { 200: PagedList(TraceListItem) } } }, async (request) => {
    const { limit, offset, ...filters } = request.query;
    const page = await listTraces(deps, request.principal, filters, { limit, offset });
    return { data: page.items.map(presentTraceListItem), pagination: { total: page.total, limit, offset } };
  });

  app.get('/traces/:traceId', { config, schema: { tags, params: TraceIdParams, response: { 200: TraceDetail } } }, async (request) => {
    const { trace, events, approvals } = await getTrace(deps, request.principal, request.params.traceId);
    return {
      ...presentTraceRecord(trace),
      events: events.map(presentEvent),
      approval_requests: approvals.map((approval) => ({
        id: approval.id,
        status: approval.status,
        approver_name: approval.approverName,
        decided_at: approval.decidedAt?.toISOString() ?? null,
      })),
    };
  });

  app.get('/traces/:traceId/verify', { config, schema: { tags, params: TraceIdParams, response: { 200: Verification } } }, async (request) => {
    const result = await verifyTrace(deps, request.principal, request.params.traceId);
    return {
      trace_id: result.traceId,
      valid: result.valid,
      event_count: result.eventCount,
      verified_at: result.verifiedAt.toISOString(),
      ...(result.firstInvalidEventId ? { first_invalid_event: result.firstInvalidEventId } : {}),
    };
  });
};
