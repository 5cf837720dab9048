import { effectClaim, releaseEffects, type Deps, type DueEffect } from '@agov/domain';
import type { Logger } from 'pino';
import { HANDLED_KINDS, type HandledKind } from './catalog.js';

/** Where claimed effects go: a queue on Redis, or this process's own consumers. */
export interface EffectSink {
  enqueue(effects: readonly DueEffect<HandledKind>[]): Promise<void>;
}

const BATCH = 500;
/** Claims what the catalog handles; see the domain's outbox/claim.ts. */
const claimDueEffects = effectClaim(HANDLED_KINDS);

/**
 * Moves due outbox rows to the consumers, at least once. A row leaves the outbox only when
 * its handler has done its work, so whatever is lost on the way (Redis restarted empty, a
 * worker killed mid-job) comes due again when its lease runs out: this loop is also the
 * sweeper. It polls every `pollMs`, and at once again while it finds full batches.
 */
export class OutboxRelay {
  private stopped = false;
  private running: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;
  /** Why the last poll failed: the database being away is told by `databaseAvailability`, anything else here. */
  private failing: 'database' | 'queue' | null = null;

  constructor(
    private readonly deps: Deps,
    private readonly sink: EffectSink,
    private readonly logger: Logger,
    private readonly options: { pollMs: number; leaseMs: number },
  ) {}

  start(): void {
    this.running ??= this.loop();
  }

  /** New rows are waiting (a fan-out just wrote deliveries): look now, not at the next poll. */
  wake(): void {
    this.wakeUp?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.running;
  }

  /**
   * Claims one batch and hands it on. Returns how many due rows it took, handed on or not:
   * a batch of webhooks becomes a few delivery jobs, and rows nobody wants become none, but a
   * full batch still means more may be due.
   */
  async relayOnce(): Promise<number> {
    const { taken, effects } = await claimDueEffects(this.deps.database, { batch: BATCH, leaseMs: this.options.leaseMs });
    if (effects.length === 0) return taken;
    try {
      await this.sink.enqueue(effects);
    } catch (error) {
      // Not handed on: due again at once, for when the queue is back.
      await releaseEffects(
        this.deps.database,
        effects.map((effect) => effect.id),
      );
      throw error;
    }
    return taken;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let taken = 0;
      try {
        taken = await this.relayOnce();
        if (this.failing === 'queue') this.logger.info('outbox relay: dispatching again');
        this.failing = null;
      } catch (error) {
        const cause = this.deps.databaseAvailability.report(error) ? 'database' : 'queue';
        // Logged once per outage, not on every poll.
        if (cause === 'queue' && this.failing !== 'queue')
          this.logger.error({ err: error }, 'outbox relay: cannot dispatch; effects wait in the outbox');
        this.failing = cause;
      }
      if (taken < BATCH) await this.pause(this.failing ? Math.max(this.options.pollMs, 1_000) : this.options.pollMs);
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wake(), ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        this.wakeUp = null;
        resolve();
      };
    });
  }
}
