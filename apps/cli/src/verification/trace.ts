import { firstBrokenEvent } from './chain.js';
import type { TraceFile } from './exports.js';

/** The verdict on a file: printed on standard output, exit 0 when valid and 1 when not. */
export interface Verdict {
  valid: boolean;
  report: string;
}

/** Recomputes every event's hash from its fields and its predecessor's stored hash. */
export function verifyTraceFile(trace: TraceFile): Verdict {
  const { traceId, events } = trace;
  const broken = firstBrokenEvent(traceId, events);
  if (broken === null) return { valid: true, report: `valid: trace ${traceId}, ${events.length} events, hash chain intact` };
  const position = events.findIndex((event) => event.id === broken) + 1;
  return {
    valid: false,
    report: `INVALID: trace ${traceId}, chain breaks at event ${broken} (position ${position} of ${events.length})`,
  };
}
