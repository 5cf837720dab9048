import type { DueEffect } from '@agov/domain';
import type { HandledKind, PeriodicJob, QueueName } from './catalog.js';
import type { EffectSink } from './relay.js';

export interface Consumers {
  effect(effect: DueEffect<HandledKind>): Promise<void>;
  periodic(job: PeriodicJob): Promise<void>;
}

/**
 * A job backend: BullMQ on Redis, or this process's own consumers. Handlers do not know
 * which one runs them; `packages/runtime` chooses.
 */
export interface JobBackend extends EffectSink {
  /** Starts calling the consumers for queued jobs. */
  consume(consumers: Consumers): Promise<void>;
  /** Runs a periodic job every `everyMs`, once per interval across all processes. */
  schedule(job: PeriodicJob, everyMs: number): Promise<void>;
  /** Jobs waiting in each queue, for the metrics. */
  depths(): Promise<Record<QueueName, number>>;
  /** Stops taking jobs, lets running ones finish, and lets go of its connections. */
  close(): Promise<void>;
}

/**
 * How many jobs of each queue one process runs at once. Deliveries mostly wait on the network;
 * a webhook job sends up to DELIVERIES_PER_EFFECT requests at once, so at most 8 × 32.
 */
export const CONCURRENCY: Record<QueueName, number> = { effects: 8, webhooks: 8, deliveries: 32 };
