import { canonicalize, sha256 } from './canonical-hash.js';
import type { Schema } from './schemas.js';

/** An audit event as the trace detail and the trace export show it. */
export type TraceEvent = Schema<'TraceEvent'>;

/** A row of `GET /api/v1/audit/export` (JSON), also the data of an `audit.event` webhook. */
export type AuditExportRow = Schema<'AuditEvent'>;

/** A file that is not what the verifier reads: not a broken chain, but nothing to check. */
export class InvalidExportError extends Error {
  override readonly name = 'InvalidExportError';
}

const GENESIS_HASH = '';

/**
 * `"sha256:" + hex(SHA-256(previousHash + "\n" + JCS(fields)))` over exactly the eleven
 * fields the service hashes (README "Audit hash chain"); `traceId` is hashed although
 * event objects do not show it. The service computes the same in its hash-chain.ts.
 */
export async function eventHash(previousHash: string, traceId: string, event: TraceEvent): Promise<string> {
  const canonical = canonicalize({
    id: event.id,
    trace_id: traceId,
    event_type: event.event_type,
    actor_type: event.actor_type,
    actor_name: event.actor_name,
    description: event.description,
    status: event.status,
    timestamp: event.timestamp,
    policy_version: event.policy_version,
    approval_request_id: event.approval_request_id,
    metadata: event.metadata,
  });
  if (canonical === undefined) throw new InvalidExportError(`event ${event.id} has no canonical JSON form`);
  return sha256(`${previousHash}\n${canonical}`);
}

export interface TraceVerification {
  traceId: string;
  valid: boolean;
  eventCount: number;
  /** The first event whose hash does not chain to the one before it; null when valid. */
  firstInvalidEventId: string | null;
  /** Its place in the trace, from 1; null when valid. */
  firstInvalidPosition: number | null;
}

/**
 * Checks a saved trace offline: the file of `GET /api/v1/traces/:traceId/export`
 * (`{trace, events, …}`) or the trace detail (`{id, events, …}`). Each event must hash, with
 * its predecessor's stored hash, to its own stored hash. Detects a changed, inserted,
 * removed or reordered event; a file carries no stored head, so events cut from the end
 * go unseen (the service's `verifyTrace` sees them).
 */
export async function verifyTraceExport(file: unknown): Promise<TraceVerification> {
  const { traceId, events } = readTrace(file);
  let previousHash = GENESIS_HASH;
  for (const [index, event] of events.entries()) {
    if (event.integrity_hash === null || event.integrity_hash !== (await eventHash(previousHash, traceId, event))) {
      return { traceId, valid: false, eventCount: events.length, firstInvalidEventId: event.id, firstInvalidPosition: index + 1 };
    }
    previousHash = event.integrity_hash;
  }
  return { traceId, valid: true, eventCount: events.length, firstInvalidEventId: null, firstInvalidPosition: null };
}

export interface AuditExportVerification {
  /** False when a row is malformed, repeated or out of time order, or differs from a trace given. */
  valid: boolean;
  eventCount: number;
  /** Traces whose rows were checked against a verified chain. */
  checkedTraceIds: string[];
  /** Traces with rows in the export but no trace file given: their hashes were not recomputed. */
  uncheckedTraceIds: string[];
  /** The first row (or event of a trace given) that fails; null when valid. */
  firstInvalidEventId: string | null;
  /** Why it fails. */
  problem: string | null;
}

const SHA256 = /^sha256:[0-9a-f]{64}$/;
/** The fields an audit export row shares with its event in the trace. */
const SHARED_FIELDS = [
  'event_type',
  'actor_type',
  'actor_name',
  'description',
  'status',
  'timestamp',
  'policy_version',
  'integrity_hash',
] as const;

/**
 * Checks an audit export (`GET /api/v1/audit/export`, JSON) offline. Its rows lack two of
 * the hashed fields (`approval_request_id`, `metadata`), so no hash can be recomputed from
 * the rows alone. What the rows allow is checked: each hash is a sha256 hash, no event
 * appears twice, rows come in time order. Against the trace exports (or details) given,
 * whose own chains are verified first, every row of such a trace must be its event exactly
 * (same fields, hash and agent), in chain order, and each of its events recorded within the
 * export's time span must have a row. Traces with no file given are listed as unchecked.
 */
export async function verifyAuditExport(rows: unknown, traceFiles: readonly unknown[] = []): Promise<AuditExportVerification> {
  if (!Array.isArray(rows) || rows.some((row) => !isAuditRow(row))) {
    throw new InvalidExportError(
      'not an audit export: expected a JSON array of rows with event_id, trace_id, timestamp and integrity_hash',
    );
  }
  const auditRows = rows as AuditExportRow[];
  const traces = traceFiles.map(readTrace);
  const traceIds = [...new Set(auditRows.map((row) => row.trace_id))];
  const given = new Set(traces.map((trace) => trace.traceId));
  const result = (failure: { eventId: string; problem: string } | null): AuditExportVerification => ({
    valid: failure === null,
    eventCount: auditRows.length,
    checkedTraceIds: traceIds.filter((id) => given.has(id)),
    uncheckedTraceIds: traceIds.filter((id) => !given.has(id)),
    firstInvalidEventId: failure?.eventId ?? null,
    problem: failure?.problem ?? null,
  });

  const seen = new Set<string>();
  for (const [index, row] of auditRows.entries()) {
    const fail = (problem: string) => result({ eventId: row.event_id, problem });
    if (row.integrity_hash === null || !SHA256.test(row.integrity_hash)) return fail('its integrity_hash is not a sha256 hash');
    if (seen.has(row.event_id)) return fail('it appears twice');
    seen.add(row.event_id);
    if (index > 0 && Date.parse(row.timestamp) < Date.parse(auditRows[index - 1]!.timestamp)) return fail('it is out of time order');
  }

  for (const [index, trace] of traces.entries()) {
    const chain = await verifyTraceExport(traceFiles[index]);
    if (!chain.valid)
      return result({ eventId: chain.firstInvalidEventId!, problem: `the hash chain of trace ${trace.traceId} breaks at this event` });
    const mismatch = compareWithTrace(auditRows, trace);
    if (mismatch) return result(mismatch);
  }
  return result(null);
}

/** The first way the rows of `trace` differ from its events, or null when they match. */
function compareWithTrace(rows: readonly AuditExportRow[], trace: ReadTrace): { eventId: string; problem: string } | null {
  const first = rows[0];
  const last = rows.at(-1);
  if (!first || !last) return null;
  // The export holds every event recorded in its range, so each event of the trace between
  // its first and last row's times must be in it.
  const from = Date.parse(first.timestamp);
  const to = Date.parse(last.timestamp);
  const expected = trace.events.filter((event) => Date.parse(event.timestamp) >= from && Date.parse(event.timestamp) <= to);
  const ofTrace = rows.filter((row) => row.trace_id === trace.traceId);
  const missing = (event: TraceEvent) => ({
    eventId: event.id,
    problem: `missing: an event of trace ${trace.traceId} recorded within the export's time span`,
  });
  for (let i = 0; i < Math.max(expected.length, ofTrace.length); i++) {
    const event = expected[i];
    const row = ofTrace[i];
    if (!row) return missing(event!);
    const recorded = trace.events.find((candidate) => candidate.id === row.event_id);
    if (!recorded) return { eventId: row.event_id, problem: `not an event of trace ${trace.traceId}` };
    const differing =
      SHARED_FIELDS.find((field) => row[field] !== recorded[field]) ??
      (trace.agentId !== null && row.agent_id !== trace.agentId ? 'agent_id' : undefined);
    if (differing) return { eventId: row.event_id, problem: `${differing} differs from the trace's event` };
    if (event && event.id !== row.event_id) {
      return expected.indexOf(recorded) > i ? missing(event) : { eventId: row.event_id, problem: 'out of chain order' };
    }
  }
  return null;
}

interface ReadTrace {
  traceId: string;
  agentId: string | null;
  events: TraceEvent[];
}

function readTrace(file: unknown): ReadTrace {
  if (!isRecord(file)) throw new InvalidExportError('not a trace export: expected a JSON object');
  const record = isRecord(file.trace) ? file.trace : file;
  const traceId = record.id;
  const agentId = typeof record.agent_id === 'string' ? record.agent_id : null;
  if (typeof traceId !== 'string' || !Array.isArray(file.events) || !file.events.every(isEvent)) {
    throw new InvalidExportError('not a trace export: expected {trace: {id}, events: [...]} or {id, events: [...]}');
  }
  return { traceId, agentId, events: file.events };
}

function isAuditRow(value: unknown): value is AuditExportRow {
  return (
    isRecord(value) &&
    typeof value.event_id === 'string' &&
    typeof value.trace_id === 'string' &&
    typeof value.timestamp === 'string' &&
    (typeof value.integrity_hash === 'string' || value.integrity_hash === null)
  );
}

function isEvent(value: unknown): value is TraceEvent {
  return isRecord(value) && typeof value.id === 'string' && 'integrity_hash' in value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
