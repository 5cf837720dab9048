import { describe, expect, it } from 'vitest';
import { outcomeAfter, type OutcomeStatus } from './outcome.js';
import type { TraceRow } from '@agov/db';

type Trace = Pick<TraceRow, 'finalOutcome' | 'decision' | 'outcomeRecorded'>;
type FinalOutcome = TraceRow['finalOutcome'];
type Decision = TraceRow['decision'];

const FINAL_OUTCOMES: readonly FinalOutcome[] = ['in_progress', 'executed', 'blocked', 'denied', 'completed_with_approval', 'expired'];
const DECISIONS: readonly Decision[] = ['allow', 'approval_required', 'deny'];
const STATUSES: readonly OutcomeStatus[] = ['success', 'error'];

const trace = (finalOutcome: FinalOutcome, decision: Decision, outcomeRecorded = false): Trace => ({
  finalOutcome,
  decision,
  outcomeRecorded,
});

const ALREADY = /already been recorded/;
const PENDING = /still pending/;
const DENIED = /denied/;
const EXPIRED = /expired/;

/** Expects a refusal whose reason matches `reason`. */
function expectRefused(result: ReturnType<typeof outcomeAfter>, reason: RegExp) {
  expect(typeof result).toBe('object');
  expect(result).toEqual({ refused: expect.stringMatching(reason) });
}

describe('outcomeAfter: the CONTRACT mapping on a trace without an outcome', () => {
  it.each([
    // finalOutcome, decision, status, expected final outcome
    ['in_progress', 'allow', 'success', 'executed'],
    ['in_progress', 'allow', 'error', 'blocked'],
    ['completed_with_approval', 'approval_required', 'success', 'completed_with_approval'],
    ['completed_with_approval', 'approval_required', 'error', 'blocked'],
  ] as const)('%s (%s) + %s → %s', (finalOutcome, decision, status, expected) => {
    expect(outcomeAfter(trace(finalOutcome, decision), status)).toBe(expected);
  });

  it.each(STATUSES)('refuses %s while the approval is still pending', (status) => {
    expectRefused(outcomeAfter(trace('in_progress', 'approval_required'), status), PENDING);
  });

  it.each([
    ['denied', 'deny', DENIED],
    ['denied', 'approval_required', DENIED],
    ['expired', 'approval_required', EXPIRED],
    // A trace closed by an outcome always has outcomeRecorded; should the flag be false, it is still refused.
    ['executed', 'allow', ALREADY],
    ['blocked', 'allow', ALREADY],
    ['executed', 'approval_required', ALREADY],
    ['blocked', 'approval_required', ALREADY],
  ] as const)('refuses any outcome on a %s trace (%s decision)', (finalOutcome, decision, reason) => {
    for (const status of STATUSES) expectRefused(outcomeAfter(trace(finalOutcome, decision), status), reason);
  });

  it('a successful outcome never yields anything but executed or completed_with_approval, an error only blocked', () => {
    for (const finalOutcome of FINAL_OUTCOMES) {
      for (const decision of DECISIONS) {
        const success = outcomeAfter(trace(finalOutcome, decision), 'success');
        const error = outcomeAfter(trace(finalOutcome, decision), 'error');
        if (typeof success === 'string') expect(['executed', 'completed_with_approval']).toContain(success);
        if (typeof error === 'string') expect(error).toBe('blocked');
        // Whether an outcome is accepted never depends on its status.
        expect(typeof success).toBe(typeof error);
      }
    }
  });
});

describe('outcomeAfter: one outcome per trace', () => {
  const every = FINAL_OUTCOMES.flatMap((finalOutcome) =>
    DECISIONS.flatMap((decision) => STATUSES.map((status) => [finalOutcome, decision, status] as const)),
  );

  it.each(every)('refuses a second outcome on a %s trace (%s decision), status %s', (finalOutcome, decision, status) => {
    expectRefused(outcomeAfter(trace(finalOutcome, decision, true), status), ALREADY);
  });
});
