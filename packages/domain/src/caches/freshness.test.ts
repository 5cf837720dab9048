import { describe, expect, it } from 'vitest';
import { CacheFreshness } from './freshness.js';

/** A clock whose reads the test answers one by one, in order. */
function controlledClock() {
  const reads: ((seq: number) => void)[] = [];
  return {
    read: () => new Promise<number>((resolve) => reads.push(resolve)),
    reads,
    answer(seq: number) {
      const next = reads.shift();
      if (!next) throw new Error('no read is waiting');
      next(seq);
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

function freshnessWith(clock: ReturnType<typeof controlledClock>, waitMs = 60_000) {
  let drops = 0;
  const freshness = new CacheFreshness(clock.read, { waitMs, dropCaches: () => (drops += 1) });
  return { freshness, drops: () => drops };
}

/** Tracks whether a promise has settled, without waiting for it. */
function settled(promise: Promise<unknown>) {
  const state = { done: false };
  void promise.then(() => (state.done = true));
  return state;
}

describe('CacheFreshness', () => {
  it('lets a request through when every committed change has been heard', async () => {
    const clock = controlledClock();
    const { freshness } = freshnessWith(clock);
    freshness.heard(3);
    const ensured = settled(freshness.ensure());
    await tick();
    clock.answer(3);
    await tick();
    expect(ensured.done).toBe(true);
  });

  it('holds a request until the listener hears the change the clock says was committed', async () => {
    const clock = controlledClock();
    const { freshness, drops } = freshnessWith(clock);
    freshness.heard(3);
    const ensured = settled(freshness.ensure());
    await tick();
    clock.answer(5);
    await tick();
    expect(ensured.done).toBe(false);
    freshness.heard(4);
    await tick();
    expect(ensured.done).toBe(false);
    freshness.heard(5);
    await tick();
    expect(ensured.done).toBe(true);
    expect(drops()).toBe(0);
  });

  it('answers a caller only from a read that started after its call, and shares that read among callers', async () => {
    const clock = controlledClock();
    const { freshness } = freshnessWith(clock);
    freshness.heard(7);
    const first = settled(freshness.ensure());
    await tick();
    expect(clock.reads).toHaveLength(1);

    // These arrive while the first read is under way: it may predate their changes.
    const later = [freshness.ensure(), freshness.ensure(), freshness.ensure()].map(settled);
    await tick();
    expect(clock.reads).toHaveLength(1);
    clock.answer(7);
    await tick();
    expect(first.done).toBe(true);
    expect(later.map((state) => state.done)).toEqual([false, false, false]);

    // One more read serves all three.
    expect(clock.reads).toHaveLength(1);
    clock.answer(7);
    await tick();
    expect(later.map((state) => state.done)).toEqual([true, true, true]);
    expect(clock.reads).toHaveLength(0);
  });

  it('drops the caches when the listener stays silent past the wait, and counts the change as heard', async () => {
    const clock = controlledClock();
    const { freshness, drops } = freshnessWith(clock, 20);
    freshness.heard(1);
    const ensured = freshness.ensure();
    await tick();
    clock.answer(2);
    await ensured;
    expect(drops()).toBe(1);

    const next = settled(freshness.ensure());
    await tick();
    clock.answer(2);
    await tick();
    expect(next.done).toBe(true);
    expect(drops()).toBe(1);
  });

  it('after the listener lost its connection, drops the caches and counts from the clock read then', async () => {
    const clock = controlledClock();
    const { freshness, drops } = freshnessWith(clock);
    freshness.heard(1);
    const resynchronized = freshness.resynchronize();
    expect(drops()).toBe(1);
    clock.answer(9);
    await resynchronized;

    const ensured = settled(freshness.ensure());
    await tick();
    clock.answer(9);
    await tick();
    expect(ensured.done).toBe(true);
  });

  it('when the clock cannot be read after the listener came back, counts the next read as heard instead of waiting', async () => {
    let fail = true;
    let committed = 9;
    let drops = 0;
    const freshness = new CacheFreshness(
      async () => {
        if (fail) throw new Error('terminating connection due to administrator command');
        return committed;
      },
      { waitMs: 60_000, dropCaches: () => (drops += 1) },
    );
    freshness.heard(1);
    await expect(freshness.resynchronize()).rejects.toThrow('administrator command');
    expect(drops).toBe(1);

    fail = false;
    const ensured = settled(freshness.ensure());
    await tick();
    expect([ensured.done, drops]).toEqual([true, 1]);
    // From there on, a change not yet heard holds requests back as before.
    committed = 10;
    const held = settled(freshness.ensure());
    await tick();
    expect(held.done).toBe(false);
    freshness.heard(10);
    await tick();
    expect(held.done).toBe(true);
  });

  it('starts a new read beside one that has not answered in 100 ms, instead of waiting for it', async () => {
    const clock = controlledClock();
    const { freshness } = freshnessWith(clock);
    freshness.heard(3);
    void freshness.ensure();
    await tick();
    expect(clock.reads).toHaveLength(1);
    // That read is stuck (a connection the database never answered); a later caller does not wait for it.
    const later = settled(freshness.ensure());
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(clock.reads).toHaveLength(2);
    clock.reads[1]!(3);
    await tick();
    expect(later.done).toBe(true);
  });
});
