import type { AgentRow } from '@agov/db';
import type { RateCounters } from '../limits/counters.js';
import type { PolicyEffect } from '../policy/matching.js';
import type { Decision } from './decide.js';

/** The agent fields that throttle it, by the name the API gives them. */
export type ThrottleLimit = 'max_requests_per_minute' | 'max_identical_requests_per_minute';

/** The limit an evaluation went past, and what it turns the decision into. */
export interface Throttled {
  limit: ThrottleLimit;
  max: number;
  effect: AgentRow['throttleEffect'];
}

const MINUTE_MS = 60_000;

/** Whether the agent has a per-minute limit; evaluate asks the counters only then, so an agent without pays nothing. */
export const hasThrottle = (agent: AgentRow) => agent.maxRequestsPerMinute !== null || agent.maxIdenticalRequestsPerMinute !== null;

/**
 * Counts one evaluation against the agent's per-minute limits and names the first it is past,
 * the loop guard (identical actions) before the burst guard; null within both. The counters are the rate limiter's: a sliding minute
 * as two fixed minutes, in Redis shared by every API process or in memory (docs/rate-limits.md).
 * A request past a limit is not counted, so an agent that keeps looping is let through again as
 * soon as its rate falls back under the limit.
 */
export async function throttleOf(
  counters: RateCounters,
  agent: AgentRow,
  actionDigest: () => string,
  nowMs: number,
): Promise<Throttled | null> {
  const limits: { limit: ThrottleLimit; max: number; key: string }[] = [];
  if (agent.maxIdenticalRequestsPerMinute !== null) {
    const max = agent.maxIdenticalRequestsPerMinute;
    limits.push({ limit: 'max_identical_requests_per_minute', max, key: `throttle:identical:${agent.id}:${actionDigest()}` });
  }
  if (agent.maxRequestsPerMinute !== null) {
    limits.push({ limit: 'max_requests_per_minute', max: agent.maxRequestsPerMinute, key: `throttle:agent:${agent.id}` });
  }
  const verdicts = await Promise.all(limits.map(({ key, max }) => counters.hit(key, { limit: max, windowMs: MINUTE_MS, nowMs }, true)));
  const past = limits.find((_, index) => !verdicts[index]!.allowed);
  return past ? { limit: past.limit, max: past.max, effect: agent.throttleEffect } : null;
}

/** The reason a throttled decision gives. */
export function throttleReason({ limit, max }: Throttled): string {
  const what = limit === 'max_identical_requests_per_minute' ? 'identical requests' : 'requests';
  return `Agent exceeded ${limit}: more than ${max} ${what} in the last minute`;
}

/** How far each decision holds an action back: a throttle only ever makes a decision stricter. */
const STRICTNESS: Record<PolicyEffect, number> = { allow: 0, approval_required: 1, deny: 2 };

/** The decision once the agent is past a limit: the throttle's effect, unless the rules' is stricter already. */
export function throttledDecision(ruled: Decision, throttled: Throttled): Decision {
  if (STRICTNESS[ruled.effect] >= STRICTNESS[throttled.effect]) return ruled;
  return { effect: throttled.effect, rule: null, reason: throttleReason(throttled) };
}
