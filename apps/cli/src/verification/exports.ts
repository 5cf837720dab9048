import { readFileSync } from 'node:fs';
import type { ExportedEvent } from './chain.js';

/** A file that cannot be read, is not JSON, or is no export: exit 2. */
export class UnreadableExport extends Error {}

/** One trace with its full chain: the single-trace export, or the trace detail. */
export interface TraceFile {
  kind: 'trace';
  traceId: string;
  agentId: string | null;
  events: ExportedEvent[];
}

/** The audit export's JSON form: the spec's columns, one object per event. */
export interface AuditRow {
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
  integrity_hash: string;
}
export interface AuditFile {
  kind: 'audit';
  rows: AuditRow[];
}

const AUDIT_TEXT_COLUMNS = ['event_id', 'trace_id', 'agent_id', 'event_type', 'actor_type', 'actor_name', 'description', 'status'] as const;

/** Reads `path` (`-`: standard input) and recognises which export it holds. */
export function readExport(path: string): TraceFile | AuditFile {
  let text: string;
  try {
    text = readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (error) {
    throw new UnreadableExport(`cannot read ${path}: ${(error as Error).message}`);
  }
  let file: unknown;
  try {
    file = JSON.parse(text, finiteNumbers);
  } catch (error) {
    throw new UnreadableExport(`cannot read ${path}: not JSON (${(error as Error).message}); audit exports are read in their JSON form`);
  }
  return Array.isArray(file) ? { kind: 'audit', rows: file.map(auditRow) } : traceFile(file);
}

/** JSON reads 1e400 as Infinity, which has no canonical form to hash: no export holds one. */
function finiteNumbers(_key: string, value: unknown): unknown {
  if (typeof value === 'number' && !Number.isFinite(value)) throw new Error('a number out of range');
  return value;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function traceFile(file: unknown): TraceFile {
  const shape = 'not a trace export: expected {trace: {id}, events: [...]} or {id, events: [...]}, or an audit export [...]';
  if (!isObject(file)) throw new UnreadableExport(shape);
  const trace = isObject(file.trace) ? file.trace : file;
  const events = file.events;
  if (typeof trace.id !== 'string' || !Array.isArray(events)) throw new UnreadableExport(shape);
  events.forEach((event, index) => {
    if (!isObject(event) || typeof event.id !== 'string') throw new UnreadableExport(`not a trace export: event ${index + 1} has no id`);
  });
  return {
    kind: 'trace',
    traceId: trace.id,
    agentId: typeof trace.agent_id === 'string' ? trace.agent_id : null,
    events: events as ExportedEvent[],
  };
}

function auditRow(row: unknown, index: number): AuditRow {
  const fault = (what: string) => new UnreadableExport(`not an audit export: row ${index + 1} ${what}`);
  if (!isObject(row)) throw fault('is not an object');
  for (const column of AUDIT_TEXT_COLUMNS) if (typeof row[column] !== 'string') throw fault(`has no ${column}`);
  if (typeof row.timestamp !== 'string' || Number.isNaN(Date.parse(row.timestamp))) throw fault('has no timestamp');
  if (row.policy_version !== null && typeof row.policy_version !== 'number') throw fault('has no policy_version');
  if (typeof row.integrity_hash !== 'string') throw fault('has no integrity_hash');
  return row as unknown as AuditRow;
}
