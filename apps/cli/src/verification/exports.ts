import { readFileSync } from 'node:fs';
import { type AuditExportVerification, InvalidExportError, type TraceVerification, verifyAuditExport, verifyTraceExport } from '@agov/sdk';

/** A file that cannot be read, is not JSON, or is no export: exit 2. */
export class UnreadableExport extends Error {}

/** The verdict on a file: printed on standard output, exit 0 when valid and 1 when not. */
export interface Verdict {
  valid: boolean;
  report: string;
}

/** Reads `path` (`-`: standard input) as JSON. */
export function readExport(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (error) {
    throw new UnreadableExport(`cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text, finiteNumbers);
  } catch (error) {
    throw new UnreadableExport(`cannot read ${path}: not JSON (${(error as Error).message}); audit exports are read in their JSON form`);
  }
}

/** JSON reads 1e400 as Infinity, which has no canonical form to hash: no export holds one. */
function finiteNumbers(_key: string, value: unknown): unknown {
  if (typeof value === 'number' && !Number.isFinite(value)) throw new Error('a number out of range');
  return value;
}

/** An audit export is the JSON array of its rows; anything else is read as a trace. */
export const isAuditExport = (file: unknown): file is unknown[] => Array.isArray(file);

/**
 * Checks a trace export or trace detail with the SDK's verifier, the one offline verifier of
 * this repository: every event's hash recomputed from its fields and its predecessor's.
 */
export async function verifyTraceFile(file: unknown): Promise<Verdict> {
  const { traceId, valid, eventCount, firstInvalidEventId, firstInvalidPosition } = await readable(() => verifyTraceExport(file));
  if (valid) return { valid, report: `valid: trace ${traceId}, ${eventCount} events, hash chain intact` };
  return {
    valid,
    report: `INVALID: trace ${traceId}, chain breaks at event ${firstInvalidEventId} (position ${firstInvalidPosition} of ${eventCount})`,
  };
}

/** Checks an audit export's rows, and them against the trace exports given (the SDK's `verifyAuditExport`). */
export async function verifyAuditFile(rows: unknown[], traces: readonly unknown[]): Promise<Verdict> {
  const { valid, eventCount, checkedTraceIds, uncheckedTraceIds, firstInvalidEventId, problem } = await readable(() =>
    verifyAuditExport(rows, traces),
  );
  if (!valid) return { valid, report: `INVALID: audit export, event ${firstInvalidEventId}: ${problem}` };
  const counted = `${eventCount} events of ${checkedTraceIds.length + uncheckedTraceIds.length} traces`;
  if (traces.length === 0) {
    return {
      valid,
      report: `well-formed: audit export, ${counted}; hashes not recomputed: rows carry no metadata or approval_request_id (check them against trace exports with --trace)`,
    };
  }
  return {
    valid,
    report: `valid: audit export, ${counted}; ${checkedTraceIds.length} traces checked against their exports' intact chains`,
  };
}

/** The SDK's refusal of what is no export, and an event nested too deep to hash, make an unreadable file. */
async function readable<T extends TraceVerification | AuditExportVerification>(verify: () => Promise<T>): Promise<T> {
  try {
    return await verify();
  } catch (error) {
    if (error instanceof InvalidExportError) throw new UnreadableExport(error.message);
    if (error instanceof RangeError) throw new UnreadableExport(`not an export: an event cannot be hashed (${error.message})`);
    throw error;
  }
}
