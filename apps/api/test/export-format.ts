import type { LightMyRequestResponse } from 'fastify';
import { parse } from 'csv-parse/sync';
import { expect } from 'vitest';
import { type ErrorBody, invalidQuery } from './assertions.js';
import type { Client } from './client.js';
import type { Credential } from './harness.js';

// What the bulk and single-trace exports write, shared by the export-*.test.ts files.

/** The spec's column lists, written out independently of the service's own constants. */
export const TRACE_COLUMNS = [
  'trace_id',
  'agent_id',
  'agent_name',
  'operation',
  'target_integration',
  'resource_scope',
  'data_classification',
  'final_outcome',
  'started_at',
  'completed_at',
  'duration_ms',
  'approval_required',
  'approver_name',
  'approval_decision',
  'approval_decided_at',
  'policy_rule_id',
  'policy_version',
] as const;
export const AUDIT_COLUMNS = [
  'event_id',
  'trace_id',
  'agent_id',
  'event_type',
  'actor_type',
  'actor_name',
  'description',
  'status',
  'timestamp',
  'policy_version',
  'integrity_hash',
] as const;
export type TraceRow = Record<(typeof TRACE_COLUMNS)[number], string>;
export type AuditEvent = Record<(typeof AUDIT_COLUMNS)[number], string | number | null>;

/** Covers every trace a test makes (a `to` in the future is held at "now"). */
export const ALL_TIME = 'from=2000-01-01&to=2999-12-31';
export const DENIED_EVENTS = ['trace_initiated', 'identity_resolved', 'policy_evaluated', 'operation_denied', 'trace_closed'];
export const APPROVED_EVENTS = [
  'trace_initiated',
  'identity_resolved',
  'policy_evaluated',
  'sensitive_operation_detected',
  'approval_requested',
  'approval_granted',
  'operation_allowed',
  'trace_closed',
];

/** A CSV body read by the real parser. Its header must be exactly `columns`; rows come keyed by column. */
export function parseCsv<Column extends string>(body: string, columns: readonly Column[]): Record<Column, string>[] {
  const [header, ...records] = parse(body) as string[][];
  expect(header).toEqual(columns);
  for (const record of records) expect(record).toHaveLength(columns.length);
  return records.map((record) => Object.fromEntries(columns.map((column, i) => [column, record[i]])) as Record<Column, string>);
}

/** How a CSV cell shows a JSON value (CONTRACT): null is empty, everything else its text. */
export const cellOf = (value: unknown) => (value === null || value === undefined ? '' : String(value));
export const asCells = (event: AuditEvent) => Object.fromEntries(AUDIT_COLUMNS.map((column) => [column, cellOf(event[column])]));

/** Lexicographic order of sort keys; ISO times and lowercase UUIDs compare as text the way PostgreSQL orders them. */
export function compareKeys(a: readonly (string | number)[], b: readonly (string | number)[]): number {
  for (const [i, x] of a.entries()) if (x !== b[i]) return x < b[i]! ? -1 : 1;
  return 0;
}
export const oldestFirst = (a: TraceRow, b: TraceRow) => compareKeys([a.started_at, a.trace_id], [b.started_at, b.trace_id]);

/** A bound that is neither a date nor a date-time, as the query schema words it. */
const notATime = (field: 'from' | 'to') =>
  invalidQuery([
    [field, 'must match format "date-time"'],
    [field, 'must match format "date"'],
    [field, 'must match a schema in anyOf'],
  ]);

/** Bounds the date-time format admits but that name no time PostgreSQL can store. */
export const UNREAL_BOUNDS: readonly [label: string, query: string, body: ErrorBody][] = [
  ['a to on a leap second', 'from=2026-01-01&to=2026-12-31T23:59:60Z', notATime('to')],
  ['a from with an hour-only offset', 'from=2026-01-01T00:00:00%2B02&to=2026-01-31', notATime('from')],
  [
    'a from in year 0000',
    'from=0000-01-01&to=2026-01-31',
    {
      error: 'validation_error',
      message: 'from is not a valid time',
      details: { fields: [{ field: 'from', message: 'must name a time that exists, between years 0001 and 9999' }] },
    },
  ],
];

/** Ranges both exports refuse with 400, each with its body; a query with no range at all is each export's own. */
export const BAD_RANGES: readonly [label: string, query: string, body: ErrorBody][] = [
  ['a missing from', 'to=2026-01-31', invalidQuery([['from', 'is required']])],
  ['a missing to', 'from=2026-01-01', invalidQuery([['to', 'is required']])],
  ['a from that is not a date', 'from=yesterday&to=2026-01-31', notATime('from')],
  ['a to that does not exist', 'from=2026-01-01&to=2026-02-30', notATime('to')],
  [
    'from after to',
    'from=2026-01-31T00:00:00.001Z&to=2026-01-31T00:00:00Z',
    {
      error: 'validation_error',
      message: 'from must not be after to',
      details: { fields: [{ field: 'from', message: 'must not be after to' }] },
    },
  ],
  ...UNREAL_BOUNDS,
];

export const exportTraces = (api: Client, credential: Credential, query: string): Promise<LightMyRequestResponse> =>
  api.get(credential, `/api/v1/traces/export?${query}`);
export const exportAudit = (api: Client, credential: Credential, query: string): Promise<LightMyRequestResponse> =>
  api.get(credential, `/api/v1/audit/export?${query}`);
