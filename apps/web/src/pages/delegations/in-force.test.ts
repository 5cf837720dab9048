import { describe, expect, it } from 'vitest';
import { delegatorsFor, endOfDay } from './in-force';
import type { Delegation } from './queries';

const ada = { id: 'ada', name: 'Ada', email: 'ada@example.test' };
const bob = { id: 'bob', name: 'Bob', email: 'bob@example.test' };
const cy = { id: 'cy', name: 'Cy', email: 'cy@example.test' };
const now = new Date('2026-11-26T12:00:00.000Z');

const delegation = (overrides: Partial<Delegation>): Delegation => ({
  id: crypto.randomUUID(),
  delegator: ada,
  delegate: bob,
  starts_at: '2026-11-26T00:00:00.000Z',
  ends_at: '2026-11-30T00:00:00.000Z',
  reason: null,
  created_at: '2026-11-26T00:00:00.000Z',
  revoked_at: null,
  ...overrides,
});

describe('delegatorsFor', () => {
  it('names each delegator once whose delegation to the user is in force', () => {
    const held = [delegation({}), delegation({ ends_at: '2026-12-10T00:00:00.000Z' }), delegation({ delegator: cy })];
    expect(delegatorsFor(held, 'bob', now)).toEqual([ada, cy]);
  });

  it('leaves out delegations to others, not started, ended or revoked', () => {
    const held = [
      delegation({ delegate: cy }),
      delegation({ starts_at: '2026-11-27T00:00:00.000Z' }),
      delegation({ ends_at: '2026-11-26T12:00:00.000Z' }),
      delegation({ revoked_at: '2026-11-26T06:00:00.000Z' }),
    ];
    expect(delegatorsFor(held, 'bob', now)).toEqual([]);
  });
});

describe('endOfDay', () => {
  it('is the last millisecond of that day where the browser is', () => {
    const end = new Date(endOfDay('2026-12-03'));
    expect([end.getFullYear(), end.getMonth(), end.getDate(), end.getHours(), end.getMinutes(), end.getMilliseconds()]).toEqual([
      2026, 11, 3, 23, 59, 999,
    ]);
  });
});
