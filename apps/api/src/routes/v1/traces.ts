import {
  getTrace,
  listTraces,
  presentTraceDetail,
  presentTraceExport,
  presentTraceListItem,
  presentVerification,
  recordOutcome,
  timeRange,
  verifyTrace,
} from '@agov/domain';
import { ACCESS } from '../../access.js';
import { PagedList } from '../../schemas/common.js';
import { OutcomeBody, TraceDetail, TraceExport, TraceIdParams, TraceListItem, TraceListQuery, Verification } from '../../schemas/traces.js';
import type { Routes } from '../types.js';

export const traceRoutes: Routes = async (app, { deps }) => {
  const read = { access: ACCESS.tracesRead };
  const tags = ['traces'];

  app.get(
    '/traces',
    { config: read, schema: { operationId: 'listTraces', tags, querystring: TraceListQuery, response: { 200: PagedList(TraceListItem) } } },
    async (request) => {
      const { limit, offset, from, to, ...filters } = request.query;
      const page = await listTraces(deps, request.principal, { ...filters, ...timeRange({ from, to }) }, { limit, offset });
      return { data: page.items.map(presentTraceListItem), pagination: { total: page.total, limit, offset } };
    },
  );

  app.get(
    '/traces/:traceId',
    { config: read, schema: { operationId: 'getTrace', tags, params: TraceIdParams, response: { 200: TraceDetail } } },
    async (request) => presentTraceDetail(await getTrace(deps, request.principal, request.params.traceId)),
  );

  app.post(
    '/traces/:traceId/outcome',
    {
      config: { access: ACCESS.tracesOutcome },
      schema: { operationId: 'recordOutcome', tags, params: TraceIdParams, body: OutcomeBody, response: { 204: { type: 'null' } } },
    },
    async (request, reply) => {
      await recordOutcome(deps, request.principal, request.params.traceId, request.body);
      return reply.status(204).send();
    },
  );

  app.get(
    '/traces/:traceId/verify',
    { config: read, schema: { operationId: 'verifyTrace', tags, params: TraceIdParams, response: { 200: Verification } } },
    async (request) => presentVerification(await verifyTrace(deps, request.principal, request.params.traceId)),
  );

  app.get(
    '/traces/:traceId/export',
    {
      config: { access: ACCESS.traceExport },
      schema: { operationId: 'exportTrace', tags, params: TraceIdParams, response: { 200: TraceExport } },
    },
    async (request, reply) => {
      const { trace, events, approvals } = await getTrace(deps, request.principal, request.params.traceId);
      reply.header('content-disposition', `attachment; filename="trace-${trace.id}.json"`);
      return presentTraceExport(trace, events, approvals, deps.clock.now());
    },
  );
};
