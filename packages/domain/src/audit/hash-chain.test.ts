import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eventHash, GENESIS_HASH, verifyChain, type ChainedEvent } from './hash-chain.js';

const TRACE_ID = '6f1d2c3b-0a9e-4d8f-b7c6-5e4d3c2b1a00';

function event(n: number, overrides: Partial<ChainedEvent> = {}): ChainedEvent {
  return {
    id: `00000000-0000-4000-8000-00000000000${n}`,
    trace_id: TRACE_ID,
    event_type: 'policy_evaluated',
    actor_type: 'policy_engine',
    actor_name: 'Policy Engine',
    description: `Step ${n}`,
    status: 'completed',
    timestamp: `2024-05-01T12:00:0${n}.000Z`,
    policy_version: n,
    approval_request_id: null,
    metadata: { step: n },
    ...overrides,
  };
}

// JCS of ASCII strings, integers, null and objects is JSON.stringify with every object's keys
// sorted by UTF-16 code units, which is what Array.prototype.sort does by default.
function sortedJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${sortedJson(item)}`).join(',')}}`;
}

const independentHash = (previous: string, fields: ChainedEvent) =>
  `sha256:${createHash('sha256')
    .update(`${previous}\n${sortedJson(fields)}`)
    .digest('hex')}`;

type StoredEvent = ChainedEvent & { integrity_hash: string | null };

function chain(events: ChainedEvent[]): StoredEvent[] {
  let previous = GENESIS_HASH;
  return events.map((fields) => {
    previous = eventHash(previous, fields);
    return { ...fields, integrity_hash: previous };
  });
}

describe('eventHash', () => {
  it('equals SHA-256 over the previous hash, a newline and the canonical JSON', () => {
    const first = event(1, {
      approval_request_id: '11111111-2222-4333-8444-555555555555',
      metadata: { zeta: 1, alpha: { nested: null, another: 'x', Upper: -3 }, list: [2, 'b', null] },
    });
    const firstHash = eventHash(GENESIS_HASH, first);
    expect(firstHash).toBe(independentHash('', first));
    expect(firstHash).toMatch(/^sha256:[0-9a-f]{64}$/);

    const second = event(2, { policy_version: null, metadata: null });
    expect(eventHash(firstHash, second)).toBe(independentHash(firstHash, second));
  });

  it('starts a chain from the empty string', () => {
    expect(GENESIS_HASH).toBe('');
  });

  it('does not depend on the insertion order of keys, at any depth', () => {
    const a = event(1, { metadata: { outer: { b: 2, a: 1 }, first: true } });
    const b = event(1, { metadata: { first: true, outer: { a: 1, b: 2 } } });
    const reordered: ChainedEvent = {
      metadata: b.metadata,
      timestamp: b.timestamp,
      id: b.id,
      status: b.status,
      trace_id: b.trace_id,
      description: b.description,
      actor_name: b.actor_name,
      actor_type: b.actor_type,
      event_type: b.event_type,
      approval_request_id: b.approval_request_id,
      policy_version: b.policy_version,
    };
    expect(eventHash('prev', a)).toBe(eventHash('prev', b));
    expect(eventHash('prev', a)).toBe(eventHash('prev', reordered));
  });

  it('ignores properties beyond the eleven hashed fields', () => {
    const plain = event(1);
    const extended = { ...plain, integrity_hash: 'sha256:whatever', agent_id: 'a-1', tenant_id: 't-1' };
    expect(eventHash('prev', extended)).toBe(eventHash('prev', plain));
  });

  it('changes with the previous hash and with every hashed field', () => {
    const base = event(1);
    const baseHash = eventHash('prev', base);
    expect(eventHash('other', base)).not.toBe(baseHash);
    const changes: Partial<ChainedEvent>[] = [
      { id: 'other' },
      { trace_id: 'other' },
      { event_type: 'trace_closed' },
      { actor_type: 'system' },
      { actor_name: 'other' },
      { description: 'other' },
      { status: 'other' },
      { timestamp: '2024-05-01T12:00:01.001Z' },
      { policy_version: null },
      { approval_request_id: 'other' },
      { metadata: null },
      { metadata: { step: '1' } },
    ];
    for (const change of changes) expect(eventHash('prev', { ...base, ...change })).not.toBe(baseHash);
  });
});

describe('verifyChain', () => {
  const intact = () => chain([1, 2, 3, 4, 5].map((n) => event(n)));
  const idOf = (n: number) => event(n).id;

  it('accepts an intact chain', () => {
    expect(verifyChain(intact())).toEqual({ valid: true, firstInvalidEventId: null });
  });

  it('accepts an empty trace', () => {
    expect(verifyChain([])).toEqual({ valid: true, firstInvalidEventId: null });
  });

  it('reports a modified event', () => {
    const events = intact();
    events[2] = { ...events[2]!, description: 'Rewritten after the fact' };
    expect(verifyChain(events)).toEqual({ valid: false, firstInvalidEventId: idOf(3) });
  });

  it('reports a modified first event', () => {
    const events = intact();
    events[0] = { ...events[0]!, metadata: { step: 99 } };
    expect(verifyChain(events)).toEqual({ valid: false, firstInvalidEventId: idOf(1) });
  });

  it('reports a missing hash', () => {
    const events = intact();
    events[3] = { ...events[3]!, integrity_hash: null };
    expect(verifyChain(events)).toEqual({ valid: false, firstInvalidEventId: idOf(4) });
  });

  it('reports the event after a deleted one', () => {
    const events = intact();
    events.splice(2, 1);
    expect(verifyChain(events)).toEqual({ valid: false, firstInvalidEventId: idOf(4) });
  });

  it('reports the first of two swapped events', () => {
    const events = intact();
    [events[1], events[3]] = [events[3]!, events[1]!];
    expect(verifyChain(events)).toEqual({ valid: false, firstInvalidEventId: idOf(4) });
  });

  it('reports an inserted event whose hash was made up', () => {
    const events = intact();
    const inserted: StoredEvent = { ...event(9), integrity_hash: `sha256:${'0'.repeat(64)}` };
    events.splice(2, 0, inserted);
    expect(verifyChain(events)).toEqual({ valid: false, firstInvalidEventId: idOf(9) });
  });

  it('reports the event after an inserted event whose hash was computed correctly', () => {
    const events = intact();
    const fields = event(9);
    const inserted: StoredEvent = { ...fields, integrity_hash: eventHash(events[1]!.integrity_hash!, fields) };
    events.splice(2, 0, inserted);
    expect(verifyChain(events)).toEqual({ valid: false, firstInvalidEventId: idOf(3) });
  });
});
