import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** What a tool call came to: a decision, or why there was none. */
export type CallDecision = 'allow' | 'approval_required' | 'deny' | 'unavailable' | 'refused' | 'fail_open';

export interface GatewayMetrics {
  readonly registry: Registry;
  /** A governed call ended; `addedSeconds` is the gateway's own time on an allowed call. */
  called(decision: CallDecision, addedSeconds?: number): void;
}

export function createMetrics(): GatewayMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const calls = new Counter({
    name: 'agov_mcp_tool_calls_total',
    help: 'Tool calls through the gateway, by decision (unavailable, refused and fail_open: no decision could be had)',
    labelNames: ['decision'],
    registers: [registry],
  });
  const added = new Histogram({
    name: 'agov_mcp_added_latency_seconds',
    help: "Time an allowed tool call spent in the gateway and the governance API, beyond the downstream tool's own",
    buckets: [0.001, 0.002, 0.003, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  });
  return {
    registry,
    called(decision, addedSeconds) {
      calls.inc({ decision });
      if (addedSeconds !== undefined) added.observe(addedSeconds);
    },
  };
}
