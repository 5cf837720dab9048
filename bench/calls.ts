/**
 * Load for calls that are not plain HTTP requests (MCP tool calls, SDK calls), where autocannon
 * cannot drive them: an open loop on a fixed schedule and a closed loop with a fixed number of
 * calls in flight. A call that throws fails the load.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface Turn {
  /** Calls ÷ the turn's length: what cpuPerRequest divides by. */
  'requests/s': number;
  /** Calls ÷ the time until the last one was answered: below the open loop's rate when calls pile up. */
  answered: number;
  /** Each call's latency, ms. */
  latencies: number[];
}

/**
 * `rate` calls a second for `seconds`, each started when due whatever is still in flight, and
 * timed from when it was due: a stall shows in every call it holds up, not only in the one it
 * hit, as it would for a client that does not wait for one call before the next.
 */
export async function openLoop(call: () => Promise<void>, rate: number, seconds: number): Promise<Turn> {
  const total = Math.round(rate * seconds);
  const latencies: number[] = [];
  const calls: Promise<void>[] = [];
  const started = performance.now();
  const due = (index: number) => started + (index * 1000) / rate;
  let next = 0;
  while (next < total) {
    // A timer that fires late starts every call that fell due meanwhile, each timed from its own due time.
    const now = performance.now();
    for (; next < total && due(next) <= now; next += 1) {
      const scheduled = due(next);
      calls.push(call().then(() => void latencies.push(performance.now() - scheduled)));
    }
    if (next < total) await sleep(Math.max(0, due(next) - performance.now()));
  }
  await Promise.all(calls);
  return { 'requests/s': total / seconds, answered: total / ((performance.now() - started) / 1000), latencies };
}

/** `inFlight` calls always under way for `seconds`, each timed from when it was sent: the most calls a second. */
export async function closedLoop(call: () => Promise<void>, inFlight: number, seconds: number): Promise<Turn> {
  const latencies: number[] = [];
  const started = performance.now();
  const end = started + seconds * 1000;
  const caller = async () => {
    while (performance.now() < end) {
      const sent = performance.now();
      await call();
      latencies.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, caller));
  return { 'requests/s': latencies.length / seconds, answered: latencies.length / ((performance.now() - started) / 1000), latencies };
}

export function percentiles(latencies: readonly number[]) {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
  return { p50: at(50), p99: at(99), max: sorted.at(-1)! };
}
