import { afterEach, describe, expect, it, vi } from 'vitest';
import { StatementBatcher } from './statement-batcher.js';

/** A statement runner whose runs the test finishes one by one, recording what each was given. */
function controlledRunner(refuse: (item: number) => boolean = () => false) {
  const runs: { items: number[]; finish(): void }[] = [];
  const run = (items: readonly number[]) =>
    new Promise<number[]>((resolve, reject) => {
      runs.push({
        items: [...items],
        finish: () => (items.some(refuse) ? reject(new Error('refused')) : resolve(items.map((item) => item * 10))),
      });
    });
  return { run, runs };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('StatementBatcher', () => {
  it('starts a statement at once, and puts what arrives meanwhile into the next one', async () => {
    const runner = controlledRunner();
    const batcher = new StatementBatcher(runner.run, { maxInFlight: 1, maxBatch: 64 });
    const first = batcher.submit(1);
    const rest = [2, 3, 4].map((item) => batcher.submit(item));
    expect(runner.runs.map((run) => run.items)).toEqual([[1]]);

    runner.runs[0]!.finish();
    expect(await first).toBe(10);
    await tick();
    expect(runner.runs.map((run) => run.items)).toEqual([[1], [2, 3, 4]]);
    runner.runs[1]!.finish();
    expect(await Promise.all(rest)).toEqual([20, 30, 40]);
  });

  it('keeps up to maxInFlight statements under way, each of at most maxBatch items', async () => {
    const runner = controlledRunner();
    const batcher = new StatementBatcher(runner.run, { maxInFlight: 2, maxBatch: 2 });
    const results = [1, 2, 3, 4, 5].map((item) => batcher.submit(item));
    expect(runner.runs.map((run) => run.items)).toEqual([[1], [2]]);

    runner.runs[0]!.finish();
    await tick();
    expect(runner.runs.map((run) => run.items)).toEqual([[1], [2], [3, 4]]);
    runner.runs[1]!.finish();
    await tick();
    expect(runner.runs.map((run) => run.items)).toEqual([[1], [2], [3, 4], [5]]);
    for (const run of runner.runs.slice(2)) run.finish();
    expect(await Promise.all(results)).toEqual([10, 20, 30, 40, 50]);
  });

  it('starts a statement beside the one under way only once minOverlappingBatch items are waiting', async () => {
    const runner = controlledRunner();
    const batcher = new StatementBatcher(runner.run, { maxInFlight: 2, maxBatch: 4, minOverlappingBatch: 3 });
    const results = [1, 2, 3].map((item) => batcher.submit(item));
    expect(runner.runs.map((run) => run.items)).toEqual([[1]]);
    results.push(batcher.submit(4));
    expect(runner.runs.map((run) => run.items)).toEqual([[1], [2, 3, 4]]);
    // Two under way: what arrives now waits, however many, until one of them finishes.
    results.push(...[5, 6, 7].map((item) => batcher.submit(item)));
    expect(runner.runs).toHaveLength(2);

    runner.runs[1]!.finish();
    await tick();
    expect(runner.runs.map((run) => run.items)).toEqual([[1], [2, 3, 4], [5, 6, 7]]);
    results.push(batcher.submit(8));
    runner.runs[0]!.finish();
    await tick();
    // One under way and a single item waiting: too few to start beside it.
    expect(runner.runs).toHaveLength(3);
    runner.runs[2]!.finish();
    await tick();
    expect(runner.runs.map((run) => run.items)).toEqual([[1], [2, 3, 4], [5, 6, 7], [8]]);
    runner.runs[3]!.finish();
    expect(await Promise.all(results)).toEqual([10, 20, 30, 40, 50, 60, 70, 80]);
  });

  describe('with overtakeAfterMs', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('starts a statement beside one under way that long, however few items wait', async () => {
      vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
      const runner = controlledRunner();
      const batcher = new StatementBatcher(runner.run, { maxInFlight: 2, maxBatch: 4, minOverlappingBatch: 3, overtakeAfterMs: 100 });
      const results = [1, 2].map((item) => batcher.submit(item));
      vi.advanceTimersByTime(99);
      expect(runner.runs.map((run) => run.items)).toEqual([[1]]);
      // Item 2 is taken by the timer when the first statement turns 100 ms old, 3 on arrival after it.
      vi.advanceTimersByTime(1);
      results.push(batcher.submit(3));
      expect(runner.runs.map((run) => run.items)).toEqual([[1], [2]]);
      // Two under way: the limit holds, overdue or not.
      vi.advanceTimersByTime(1_000);
      expect(runner.runs).toHaveLength(2);

      runner.runs[1]!.finish();
      await tick();
      expect(runner.runs.map((run) => run.items)).toEqual([[1], [2], [3]]);
      // A statement just started is not overdue: the next item waits for one to finish, or 100 ms.
      results.push(batcher.submit(4));
      runner.runs[0]!.finish();
      await tick();
      results.push(batcher.submit(5));
      expect(runner.runs).toHaveLength(3);
      vi.advanceTimersByTime(100);
      expect(runner.runs.map((run) => run.items)).toEqual([[1], [2], [3], [4, 5]]);
      runner.runs[2]!.finish();
      runner.runs[3]!.finish();
      expect(await Promise.all(results)).toEqual([10, 20, 30, 40, 50]);
    });
  });

  it('runs each item of a failed statement again alone, so only the one that cannot be done fails', async () => {
    const runner = controlledRunner((item) => item === 3);
    const batcher = new StatementBatcher(runner.run, { maxInFlight: 1, maxBatch: 64 });
    const first = batcher.submit(1);
    const batched = [2, 3, 4].map((item) => batcher.submit(item).catch((error: Error) => error.message));
    runner.runs[0]!.finish();
    await first;
    await tick();
    runner.runs[1]!.finish();
    await tick();
    expect(runner.runs.map((run) => run.items)).toEqual([[1], [2, 3, 4], [2], [3], [4]]);
    for (const run of runner.runs.slice(2)) run.finish();
    expect(await Promise.all(batched)).toEqual([20, 'refused', 40]);
  });

  it.each([
    ['the database is away', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }), {}],
    [
      '`storeAway` says its store is',
      new Error('Command timed out'),
      { storeAway: (error: unknown) => (error as Error).message === 'Command timed out' },
    ],
  ])('fails every item of a statement at once when %s, without running them again', async (_when, away, options) => {
    const runs: number[][] = [];
    const batcher = new StatementBatcher(
      async (items: readonly number[]) => {
        runs.push([...items]);
        if (items.includes(1)) return [10];
        throw away;
      },
      { maxInFlight: 1, maxBatch: 64, ...options },
    );
    const first = batcher.submit(1);
    const batched = [2, 3, 4].map((item) => batcher.submit(item).catch((error: unknown) => error));
    await first;
    expect(await Promise.all(batched)).toEqual([away, away, away]);
    expect(runs).toEqual([[1], [2, 3, 4]]);
  });
});
