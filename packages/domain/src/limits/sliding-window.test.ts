import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { admits, judge, type WindowCounts } from './sliding-window.js';

const W = 60_000;
/** An instant `elapsed` ms into fixed window 1000. */
const at = (elapsed: number) => 1_000 * W + elapsed;

describe('judge', () => {
  it('admits exactly `limit` requests in a fresh window and refuses the next', () => {
    const counts = { previous: 0, current: 0 };
    const remaining: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const verdict = judge(counts, { limit: 3, windowMs: W, nowMs: at(30_000) });
      expect(verdict.allowed).toBe(true);
      remaining.push(verdict.remaining);
      counts.current += 1;
    }
    expect(remaining).toEqual([2, 1, 0]);
    expect(judge(counts, { limit: 3, windowMs: W, nowMs: at(30_000) })).toEqual({
      allowed: false,
      remaining: 0,
      resetAtMs: at(2 * W),
      // 3 × (1 − e/60 s) + 1 ≤ 3 from e = 20 s into the next window.
      retryAtMs: at(W + 20_000),
    });
  });

  it("weighs the previous window's count by the overlap, rounding a part of a request up", () => {
    // 10 × 50/60 = 8.33…: 9 count, one more fits in a limit of 10.
    expect(judge({ previous: 10, current: 0 }, { limit: 10, windowMs: W, nowMs: at(10_000) })).toEqual({
      allowed: true,
      remaining: 0,
      resetAtMs: at(2 * W),
      retryAtMs: at(10_000),
    });
    // 10 × 55/60 = 9.17 and this one make 10.17 > 10: refused until 10 × (1 − e/60) ≤ 9, e = 6 s.
    expect(judge({ previous: 10, current: 0 }, { limit: 10, windowMs: W, nowMs: at(5_000) })).toEqual({
      allowed: false,
      remaining: 0,
      resetAtMs: at(W),
      retryAtMs: at(6_000),
    });
  });

  it('only looks when not counted, and resets at once when nothing is counted', () => {
    expect(judge({ previous: 0, current: 0 }, { limit: 5, windowMs: W, nowMs: at(1) }, false)).toEqual({
      allowed: true,
      remaining: 5,
      resetAtMs: at(1),
      retryAtMs: at(1),
    });
    expect(judge({ previous: 0, current: 2 }, { limit: 5, windowMs: W, nowMs: at(1) }, false).remaining).toBe(3);
  });

  it('answers a limit lowered below the counts with a retry within two windows', () => {
    // Next window: 40 × (1 − e/60 s) + 1 ≤ 10 from e = 46.5 s.
    expect(judge({ previous: 50, current: 40 }, { limit: 10, windowMs: W, nowMs: at(0) }).retryAtMs).toBe(at(W + 46_500));
  });
});

/** The counts an instant `ms` after `at(elapsed)` sees, with no requests in between. */
function countsAfter(counts: WindowCounts, elapsed: number, ms: number, windowMs: number): WindowCounts {
  const windows = Math.floor((elapsed + ms) / windowMs);
  if (windows === 0) return counts;
  return windows === 1 ? { previous: counts.current, current: 0 } : { previous: 0, current: 0 };
}

describe('retryAtMs', () => {
  it('is the first millisecond at which a refused request would be admitted', () => {
    const windowMs = 1_000;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 0, max: windowMs - 1 }),
        (limit, previous, current, elapsed) => {
          const nowMs = 7 * windowMs + elapsed;
          const verdict = judge({ previous, current }, { limit, windowMs, nowMs });
          if (verdict.allowed) return;
          const wait = verdict.retryAtMs - nowMs;
          const admittedAfter = (ms: number) => {
            const later = countsAfter({ previous, current }, elapsed, ms, windowMs);
            return admits(later, limit, windowMs, (elapsed + ms) % windowMs);
          };
          expect(wait).toBeGreaterThan(0);
          expect(wait).toBeLessThanOrEqual(2 * windowMs);
          expect(admittedAfter(wait)).toBe(true);
          for (let ms = 0; ms < wait; ms += 1) expect(admittedAfter(ms)).toBe(false);
        },
      ),
      { numRuns: 500 },
    );
  });
});
