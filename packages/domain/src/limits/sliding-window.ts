/**
 * The sliding window, as arithmetic on two fixed windows' counts (Cloudflare's weighted
 * approximation): the requests of the last `windowMs` are estimated as the current fixed
 * window's count plus the previous one's, weighted by how much of it the sliding window
 * still overlaps. O(1) memory per key, and one short script in Redis. Everything is in whole
 * milliseconds and integer products, so the Redis script (which mirrors `admits`) and this
 * file agree exactly. See docs/rate-limits.md.
 */

/** Counts of the fixed window `now` falls in and the one before it, before this request. */
export interface WindowCounts {
  previous: number;
  current: number;
}

export interface WindowQuery {
  limit: number;
  windowMs: number;
  nowMs: number;
}

export interface WindowVerdict {
  allowed: boolean;
  /** Requests the window would still admit after this one (or, when only looking, now). */
  remaining: number;
  /** When, with no further requests, every request counted so far is forgotten. */
  resetAtMs: number;
  /** When the next request would be admitted: `nowMs` unless refused. */
  retryAtMs: number;
}

/** Which fixed window an instant falls in; counters are keyed by it. */
export function windowIndex(nowMs: number, windowMs: number): number {
  return Math.floor(nowMs / windowMs);
}

/**
 * Whether one more request fits: previous × (overlap / window) + current + 1 ≤ limit,
 * multiplied out by the window so that no fraction is ever rounded.
 */
export function admits(counts: WindowCounts, limit: number, windowMs: number, elapsedMs: number): boolean {
  return counts.previous * (windowMs - elapsedMs) + (counts.current + 1) * windowMs <= limit * windowMs;
}

/**
 * The verdict on one request given the counts before it. `counted` says whether an admitted
 * request is added to the counts (false: only looking, as `/health` does). A refused request
 * is never counted, so a client that keeps knocking is admitted again at `retryAtMs`.
 */
export function judge(counts: WindowCounts, query: WindowQuery, counted = true): WindowVerdict {
  const { limit, windowMs, nowMs } = query;
  const start = windowIndex(nowMs, windowMs) * windowMs;
  const elapsed = nowMs - start;
  const allowed = admits(counts, limit, windowMs, elapsed);
  const current = counts.current + (allowed && counted ? 1 : 0);
  // ⌈previous × overlap⌉: the previous window's requests that still count, in whole requests.
  const carried = Math.floor((counts.previous * (windowMs - elapsed) + windowMs - 1) / windowMs);
  const resetAtMs = current > 0 ? start + 2 * windowMs : counts.previous > 0 ? start + windowMs : nowMs;
  return {
    allowed,
    remaining: allowed ? Math.max(0, limit - carried - current) : 0,
    resetAtMs,
    retryAtMs: allowed ? nowMs : retryAt(counts, limit, windowMs, start),
  };
}

/** The first millisecond at which `admits` holds again, with no further requests counted. */
function retryAt(counts: WindowCounts, limit: number, windowMs: number, start: number): number {
  // Still in this window: the previous window's weight must fall until one more request fits.
  const room = limit - counts.current - 1;
  if (room >= 0 && counts.previous > 0) {
    const elapsed = windowMs - Math.floor((room * windowMs) / counts.previous);
    if (elapsed < windowMs) return start + elapsed;
  }
  // In the next window, this window's count becomes the one that fades.
  if (counts.current === 0) return start + windowMs;
  const elapsed = windowMs - Math.floor(((limit - 1) * windowMs) / counts.current);
  return start + windowMs + Math.max(0, elapsed);
}
