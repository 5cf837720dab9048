import canonicalizeModule from 'canonicalize';

// canonicalize is CommonJS (`module.exports = serialize`) while its typings declare an ES
// default export; every runtime hands an ES import the function itself.
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

/** An audit event as the trace detail and the trace export show it. */
export interface TraceEvent {
  id: string;
  event_type: string;
  actor_type: string;
  actor_name: string;
  description: string;
  status: string;
  timestamp: string;
  policy_version: number | null;
  approval_request_id: string | null;
  metadata: Record<string, unknown> | null;
  integrity_hash: string | null;
}

/** A row of `GET /api/v1/audit/export` (JSON). */
export interface AuditExportRow {
  event_id: string;
  trace_id: string;
  agent_id: string;
  event_type: string;
  actor_type: string;
  actor_name: string;
  description: string;
  status: string;
  timestamp: string;
  policy_version: number | null;
  integrity_hash: string | null;
}

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
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${previousHash}\n${canonical}`));
  return `sha256:${Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
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
  /** False when a checked trace's chain is broken or a row differs from its trace's chain. */
  valid: boolean;
  eventCount: number;
  /** Traces whose rows were checked against a verified chain. */
  checkedTraceIds: string[];
  /** Traces with rows in the export but no trace file given: their rows were not checked. */
  uncheckedTraceIds: string[];
  /** The first row (or, for a broken trace file, the first event) that fails; null when valid. */
  firstInvalidEventId: string | null;
  /** Why it fails. */
  problem: string | null;
}

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
 * the hashed fields (`approval_request_id`, `metadata`), so a row's hash cannot be
 * recomputed from the row alone: each row is checked against the trace it belongs to.
 * Give the trace exports (or details) of the traces in it; each one's chain is verified,
 * then every row of that trace must be one of its events, with the same fields and hash,
 * in chain order. Rows of traces with no file given are listed as unchecked.
 */
export async function verifyAuditExport(rows: unknown, traceFiles: readonly unknown[] = []): Promise<AuditExportVerification> {
  if (!Array.isArray(rows) || rows.some((row) => !isRecord(row) || typeof row.event_id !== 'string' || typeof row.trace_id !== 'string')) {
    throw new InvalidExportError('not an audit export: expected a JSON array of rows with event_id and trace_id');
  }
  const auditRows = rows as AuditExportRow[];
  const chains = new Map<string, TraceEvent[]>();
  const result = (failure: { eventId: string; problem: string } | null): AuditExportVerification => ({
    valid: failure === null,
    eventCount: auditRows.length,
    checkedTraceIds: [...new Set(auditRows.map((row) => row.trace_id))].filter((id) => chains.has(id)),
    uncheckedTraceIds: [...new Set(auditRows.map((row) => row.trace_id))].filter((id) => !chains.has(id)),
    firstInvalidEventId: failure?.eventId ?? null,
    problem: failure?.problem ?? null,
  });

  for (const file of traceFiles) {
    const trace = readTrace(file);
    const verification = await verifyTraceExport(file);
    if (!verification.valid) {
      chains.set(trace.traceId, trace.events);
      return result({
        eventId: verification.firstInvalidEventId!,
        problem: `the hash chain of trace ${trace.traceId} breaks at this event`,
      });
    }
    chains.set(trace.traceId, trace.events);
  }

  const lastPosition = new Map<string, number>();
  for (const row of auditRows) {
    const chain = chains.get(row.trace_id);
    if (!chain) continue;
    const position = chain.findIndex((event) => event.id === row.event_id);
    if (position === -1) return result({ eventId: row.event_id, problem: `not an event of trace ${row.trace_id}` });
    const event = chain[position]!;
    const differing = SHARED_FIELDS.find((field) => event[field] !== row[field]);
    if (differing) return result({ eventId: row.event_id, problem: `${differing} differs from the trace's event` });
    if (position <= (lastPosition.get(row.trace_id) ?? -1)) return result({ eventId: row.event_id, problem: 'out of chain order' });
    lastPosition.set(row.trace_id, position);
  }
  return result(null);
}

function readTrace(file: unknown): { traceId: string; events: TraceEvent[] } {
  if (!isRecord(file)) throw new InvalidExportError('not a trace export: expected a JSON object');
  const traceId = isRecord(file.trace) ? file.trace.id : file.id;
  if (typeof traceId !== 'string' || !Array.isArray(file.events) || !file.events.every(isEvent)) {
    throw new InvalidExportError('not a trace export: expected {trace: {id}, events: [...]} or {id, events: [...]}');
  }
  return { traceId, events: file.events };
}

function isEvent(value: unknown): value is TraceEvent {
  return isRecord(value) && typeof value.id === 'string' && 'integrity_hash' in value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
