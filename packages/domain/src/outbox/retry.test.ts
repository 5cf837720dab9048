import { describe, expect, it } from 'vitest';
import { afterAttempt } from './retry.js';

const SPEC_DELAYS = [60_000, 300_000, 1_800_000, 7_200_000];
const now = new Date('2026-01-01T00:00:00.000Z');
const later = (ms: number) => new Date(now.getTime() + ms);

describe('afterAttempt', () => {
  it('delivers on any attempt that succeeds', () => {
    expect(afterAttempt(0, true, SPEC_DELAYS, now)).toEqual({ status: 'delivered', attempts: 1, nextRetryAt: null });
    expect(afterAttempt(4, true, SPEC_DELAYS, now)).toEqual({ status: 'delivered', attempts: 5, nextRetryAt: null });
  });

  it('waits 1 m, 5 m, 30 m and 2 h after the first four failures, then fails on the fifth', () => {
    const outcomes = [0, 1, 2, 3, 4].map((before) => afterAttempt(before, false, SPEC_DELAYS, now));
    expect(outcomes).toEqual([
      { status: 'retrying', attempts: 1, nextRetryAt: later(60_000) },
      { status: 'retrying', attempts: 2, nextRetryAt: later(300_000) },
      { status: 'retrying', attempts: 3, nextRetryAt: later(1_800_000) },
      { status: 'retrying', attempts: 4, nextRetryAt: later(7_200_000) },
      { status: 'failed', attempts: 5, nextRetryAt: null },
    ]);
  });

  it('takes the number of attempts from the configured delays', () => {
    expect(afterAttempt(0, false, [10], now)).toEqual({ status: 'retrying', attempts: 1, nextRetryAt: later(10) });
    expect(afterAttempt(1, false, [10], now)).toEqual({ status: 'failed', attempts: 2, nextRetryAt: null });
  });
});
