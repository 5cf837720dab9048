import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import {
  AUDIT_EXPORT_COLUMNS,
  csvChunks,
  dayOf,
  exportAuditEvents,
  exportTraces,
  jsonArrayChunks,
  timeRange,
  TRACE_EXPORT_COLUMNS,
  type TimeRange,
} from '@agov/domain';
import { ACCESS } from '../../access.js';
import { AuditExportQuery, TraceExportQuery } from '../../schemas/traces.js';
import type { Routes } from '../types.js';

const CSV = 'text/csv; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';

/** Sends a file download: the body streams as it is produced, never held whole in memory. */
function download(reply: FastifyReply, file: { name: string; type: string; total: number; chunks: AsyncIterable<string> }) {
  return reply
    .type(file.type)
    .header('content-disposition', `attachment; filename="${file.name}"`)
    .header('x-total-count', String(file.total))
    .send(Readable.from(file.chunks));
}

const rangeName = (range: TimeRange) => `${dayOf(range.from)}-to-${dayOf(range.to)}`;

/** Bulk exports over a time range. The single-trace export lives with the traces. */
export const exportRoutes: Routes = async (app, { deps, config }) => {
  const access = ACCESS.bulkExport;

  // A fixed path: the router prefers it to `/traces/:traceId` whatever the registration order.
  app.get(
    '/traces/export',
    {
      config: { access },
      schema: { operationId: 'exportTraces', tags: ['traces'], querystring: TraceExportQuery, produces: ['text/csv'] },
    },
    async (request, reply) => {
      const { from, to, agent_id } = request.query;
      const range = timeRange({ from, to });
      const { total, pages } = await exportTraces(
        deps,
        request.principal,
        { ...range, ...(agent_id ? { agent_id } : {}) },
        config.exportMaxRows,
      );
      return download(reply, { name: `traces-${rangeName(range)}.csv`, type: CSV, total, chunks: csvChunks(TRACE_EXPORT_COLUMNS, pages) });
    },
  );

  app.get(
    '/audit/export',
    {
      config: { access },
      schema: { operationId: 'exportAudit', tags: ['audit'], querystring: AuditExportQuery, produces: ['application/json', 'text/csv'] },
    },
    async (request, reply) => {
      const { from, to, format } = request.query;
      const range = timeRange({ from, to });
      const { total, pages } = await exportAuditEvents(deps, request.principal, range, config.exportMaxRows);
      const name = `audit-events-${rangeName(range)}.${format}`;
      const chunks = format === 'csv' ? csvChunks(AUDIT_EXPORT_COLUMNS, pages) : jsonArrayChunks(pages);
      return download(reply, { name, type: format === 'csv' ? CSV : JSON_TYPE, total, chunks });
    },
  );
};
