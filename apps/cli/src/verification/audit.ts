import type { AuditFile, AuditRow, TraceFile } from './exports.js';
import { verifyTraceFile, type Verdict } from './trace.js';

const SHA256 = /^sha256:[0-9a-f]{64}$/;
/** The fields an audit row shares with its event in a trace export (the agent's id aside). */
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
 * An audit row lacks `approval_request_id` and `metadata`, which every hash covers, so no
 * hash can be recomputed from the rows alone. What the rows do allow: each hash is a sha256
 * hash, no event appears twice, rows come in time order. Against trace exports (whose own
 * chains are verified first), each of those traces' rows must be its event exactly, and its
 * events recorded within the export's time span must each have a row, in chain order.
 */
export async function verifyAuditFile(audit: AuditFile, traces: readonly TraceFile[]): Promise<Verdict> {
  const { rows } = audit;
  const invalid = (what: string): Verdict => ({ valid: false, report: `INVALID: audit export, ${what}` });
  const seen = new Set<string>();
  for (const [index, row] of rows.entries()) {
    const where = `event ${row.event_id} (row ${index + 1})`;
    if (!SHA256.test(row.integrity_hash)) return invalid(`${where} has an integrity_hash that is not a sha256 hash`);
    if (seen.has(row.event_id)) return invalid(`${where} appears twice`);
    seen.add(row.event_id);
    if (index > 0 && Date.parse(row.timestamp) < Date.parse(rows[index - 1]!.timestamp)) return invalid(`${where} is out of time order`);
  }

  let checkedEvents = 0;
  for (const trace of traces) {
    const chain = await verifyTraceFile(trace);
    if (!chain.valid) return chain;
    const mismatch = compareWithTrace(rows, trace);
    if (mismatch) return invalid(mismatch);
    checkedEvents += rows.filter((row) => row.trace_id === trace.traceId).length;
  }

  const traceCount = new Set(rows.map((row) => row.trace_id)).size;
  const counted = `${rows.length} events of ${traceCount} traces`;
  if (traces.length === 0) {
    return {
      valid: true,
      report: `well-formed: audit export, ${counted}; hashes not recomputed: rows carry no metadata or approval_request_id (check them against trace exports with --trace)`,
    };
  }
  return {
    valid: true,
    report: `valid: audit export, ${counted}; ${checkedEvents} events checked against ${traces.length} trace exports with intact chains`,
  };
}

/** The first way the rows of `trace` differ from its export, or null when they match. */
function compareWithTrace(rows: readonly AuditRow[], trace: TraceFile): string | null {
  const first = rows[0];
  const last = rows.at(-1);
  if (!first || !last) return null;
  const from = Date.parse(first.timestamp);
  const to = Date.parse(last.timestamp);
  // The export holds every event recorded in its range, so every event of this trace between
  // its first and last row's times must be in it.
  const expected = trace.events.filter((event) => {
    const at = Date.parse(event.timestamp);
    return at >= from && at <= to;
  });
  const ofTrace = rows.flatMap((row, index) => (row.trace_id === trace.traceId ? [{ row, number: index + 1 }] : []));
  for (let i = 0; i < Math.max(expected.length, ofTrace.length); i++) {
    const event = expected[i];
    const entry = ofTrace[i];
    if (!entry)
      return `event ${event!.id} of trace ${trace.traceId} is missing (recorded ${event!.timestamp}, within the export's time span)`;
    const { row, number } = entry;
    const where = `event ${row.event_id} (row ${number})`;
    const exported = trace.events.find((candidate) => candidate.id === row.event_id);
    if (!exported) return `${where} is not in trace ${trace.traceId}'s export`;
    const field =
      SHARED_FIELDS.find((name) => row[name] !== exported[name]) ??
      (trace.agentId !== null && row.agent_id !== trace.agentId ? 'agent_id' : undefined);
    if (field) return `${where} differs from trace ${trace.traceId}'s export in ${field}`;
    if (event && event.id !== row.event_id) {
      return expected.indexOf(exported) > i
        ? `event ${event.id} of trace ${trace.traceId} is missing (recorded ${event.timestamp}, within the export's time span)`
        : `${where} is out of chain order in trace ${trace.traceId}`;
    }
  }
  return null;
}
