import { describe, expect, it } from 'vitest';
import { AGENT_TRANSITIONS, type LifecycleAction } from './lifecycle.js';
import { LIFECYCLE_STATES, type LifecycleState } from './vocabulary.js';

/** What the table does with `action` on an agent in `state`: where it goes and what it announces, or why it refuses. */
function outcome(state: LifecycleState, action: LifecycleAction) {
  const transition = AGENT_TRANSITIONS[action];
  if (!(transition.from as readonly LifecycleState[]).includes(state)) {
    // moveAgent's 409 message: "agent is <state>; " and the refusal.
    return { refused: `agent is ${state}; ${transition.refusal(state)}` };
  }
  return { to: transition.to, event: transition.event };
}

const ACTIONS: readonly LifecycleAction[] = ['suspend', 'revoke', 'reactivate'];

/** Every (state, action) pair, written out independently of the table. */
const EXPECTED: Record<LifecycleState, Record<LifecycleAction, ReturnType<typeof outcome>>> = {
  active: {
    suspend: { to: 'suspended', event: 'agent.suspended' },
    revoke: { to: 'revoked', event: 'agent.revoked' },
    reactivate: { refused: 'agent is active; only suspended agents can be reactivated' },
  },
  suspended: {
    suspend: { refused: 'agent is suspended; only active agents can be suspended' },
    revoke: { to: 'revoked', event: 'agent.revoked' },
    reactivate: { to: 'active', event: null },
  },
  revoked: {
    suspend: { refused: 'agent is revoked; revoked agents cannot be suspended' },
    revoke: { refused: 'agent is revoked; revoked agents cannot be revoked again' },
    reactivate: { refused: 'agent is revoked; revoked agents cannot be reactivated' },
  },
};

describe('AGENT_TRANSITIONS', () => {
  it('has the three lifecycle actions, each from and to known states', () => {
    expect(Object.keys(AGENT_TRANSITIONS).sort()).toEqual([...ACTIONS].sort());
    for (const action of ACTIONS) {
      expect(LIFECYCLE_STATES).toContain(AGENT_TRANSITIONS[action].to);
      for (const from of AGENT_TRANSITIONS[action].from) expect(LIFECYCLE_STATES).toContain(from);
    }
  });

  it.each(LIFECYCLE_STATES.flatMap((state) => ACTIONS.map((action) => [state, action] as const)))('%s --%s-->', (state, action) => {
    expect(outcome(state, action)).toEqual(EXPECTED[state][action]);
  });
});

/**
 * The spec's "Agent lifecycle_state" table, row by row (Interface Specification, "States and
 * transitions"): state, trigger, next state or the 409 it answers, and the webhook it fires.
 * Its other words: the initial state is `active`; revocation is "Permanent; cannot be
 * reactivated"; revoking from `suspended`, and suspending from a state other than `active`,
 * are "not shown" (the table decides them: the first is allowed, the second refused).
 */
const SPEC_ROWS = [
  { state: 'active', trigger: 'suspend', next: 'suspended', webhook: 'agent.suspended' },
  { state: 'active', trigger: 'revoke', next: 'revoked', webhook: 'agent.revoked' },
  { state: 'suspended', trigger: 'reactivate', next: 'active', webhook: null },
  { state: 'revoked', trigger: 'reactivate', next: '409 conflict', webhook: null },
] as const;

describe("AGENT_TRANSITIONS agrees with the spec's lifecycle section", () => {
  it('knows exactly the states the spec lists', () => {
    expect([...LIFECYCLE_STATES].sort()).toEqual(['active', 'revoked', 'suspended']);
  });

  it.each(SPEC_ROWS)('$state --$trigger--> $next', ({ state, trigger, next, webhook }) => {
    const result = outcome(state, trigger);
    if (next === '409 conflict') expect(result).toEqual({ refused: expect.any(String) });
    else expect(result).toEqual({ to: next, event: webhook });
  });

  it('lets nothing leave revoked: revocation is permanent', () => {
    for (const action of ACTIONS) expect(outcome('revoked', action)).toHaveProperty('refused');
  });

  it('fires a webhook exactly on the moves the spec names one for', () => {
    const announced = ACTIONS.filter((action) => AGENT_TRANSITIONS[action].event !== null).map((action) => [
      action,
      AGENT_TRANSITIONS[action].event,
    ]);
    expect(announced).toEqual([
      ['suspend', 'agent.suspended'],
      ['revoke', 'agent.revoked'],
    ]);
  });
});
