import { firstBrokenEvent } from './chain.js';
import { type TraceFile, UnreadableExport } from './exports.js';

/** The verdict on a file: printed on standard output, exit 0 when valid and 1 when not. */
export interface Verdict {
  valid: boolean;
  report: string;
}

/** Recomputes every event's hash from its fields and its predecessor's stored hash. */
export async function verifyTraceFile(trace: TraceFile): Promise<Verdict> {
  const { traceId, events } = trace;
  let broken: string | null;
  try {
    broken = await firstBrokenEvent(traceId, events);
  } catch (error) {
    // Nesting too deep to hash: the service could not have written such an event either.
    throw new UnreadableExport(`not a trace export: trace ${traceId} has an event that cannot be hashed (${(error as Error).message})`);
  }
  if (broken === null) return { valid: true, report: `valid: trace ${traceId}, ${events.length} events, hash chain intact` };
  const position = events.findIndex((event) => event.id === broken) + 1;
  return {
    valid: false,
    report: `INVALID: trace ${traceId}, chain breaks at event ${broken} (position ${position} of ${events.length})`,
  };
}
