import type { Logger } from 'pino';
import { EFFECT_JOBS, QUEUES, type HandledKind, type PeriodicJob, type QueueName } from './catalog.js';
import { CONCURRENCY, type Consumers, type JobBackend } from './backend.js';
import { DatabaseAway } from './dispatch.js';
import type { DueEffect } from '@agov/domain';

interface Lane {
  waiting: DueEffect<HandledKind>[];
  running: number;
}

/**
 * Jobs run inside this process, for embedded mode (no Redis). Like BullMQ, a job id already
 * queued or running is not queued twice. Nothing here needs to survive a restart: the
 * outbox does.
 */
export class InProcessBackend implements JobBackend {
  private readonly lanes = new Map<QueueName, Lane>(QUEUES.map((queue) => [queue, { waiting: [], running: 0 }]));
  private readonly known = new Set<string>();
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly idle: (() => void)[] = [];
  private consumers: Consumers | null = null;
  private closed = false;

  constructor(private readonly logger: Logger) {}

  async enqueue(effects: readonly DueEffect<HandledKind>[]): Promise<void> {
    if (this.closed) throw new Error('job backend is closed');
    for (const effect of effects) {
      if (this.known.has(effect.id)) continue;
      this.known.add(effect.id);
      this.lane(EFFECT_JOBS[effect.kind].queue).waiting.push(effect);
    }
    for (const queue of QUEUES) this.pump(queue);
  }

  async consume(consumers: Consumers): Promise<void> {
    this.consumers = consumers;
    for (const queue of QUEUES) this.pump(queue);
  }

  async schedule(job: PeriodicJob, everyMs: number): Promise<void> {
    this.timers.push(
      setInterval(() => {
        this.consumers?.periodic(job).catch((error: unknown) => {
          if (!(error instanceof DatabaseAway)) this.logger.error({ err: error, job }, 'periodic job failed');
        });
      }, everyMs),
    );
  }

  async depths(): Promise<Record<QueueName, number>> {
    return Object.fromEntries(QUEUES.map((queue) => [queue, this.lane(queue).waiting.length])) as Record<QueueName, number>;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    // Waiting jobs are dropped (their rows come due again); running ones finish.
    for (const queue of QUEUES) this.lane(queue).waiting.length = 0;
    if (QUEUES.some((queue) => this.lane(queue).running > 0)) await new Promise<void>((resolve) => this.idle.push(resolve));
  }

  private pump(queue: QueueName): void {
    const lane = this.lane(queue);
    const consumers = this.consumers;
    while (consumers && lane.running < CONCURRENCY[queue] && lane.waiting.length > 0) {
      const effect = lane.waiting.shift()!;
      lane.running += 1;
      consumers
        .effect(effect)
        .catch((error: unknown) => {
          if (!(error instanceof DatabaseAway)) this.logger.error({ err: error, effect }, 'job failed; its effect comes due again');
        })
        .finally(() => {
          lane.running -= 1;
          this.known.delete(effect.id);
          this.pump(queue);
          if (this.closed && QUEUES.every((q) => this.lane(q).running === 0)) for (const resolve of this.idle.splice(0)) resolve();
        });
    }
  }

  private lane(queue: QueueName): Lane {
    return this.lanes.get(queue)!;
  }
}
