import { eventually, type Received, type Receiver } from './receiver.js';

/** A tenant whose every evaluation sends one webhook. */
interface Sender {
  evaluate(): Promise<unknown>;
}

/**
 * The hanging endpoint's first post times out (`timedOutOnce` turns true); then ten more of its
 * tenant's events come, each claimed on its own and so a job of its own, more than a process has
 * delivery slots; then one event of the healthy tenant. Resolves with that webhook's arrival.
 */
export async function healthyAfterHanging(
  hanging: Sender & { timedOutOnce(): Promise<boolean> },
  healthy: Sender & { hook: Receiver },
  timeoutMs: number,
): Promise<Received> {
  await hanging.evaluate();
  await eventually(() => hanging.timedOutOnce(), 2 * timeoutMs, 'first timeout');
  for (let i = 0; i < 10; i += 1) {
    await hanging.evaluate();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await healthy.evaluate();
  const [arrived] = await healthy.hook.waitFor(1);
  return arrived!;
}
