import type { Deps } from '@agov/domain';
import type { Logger } from 'pino';
import type { JobBackend } from './backend.js';
import { EFFECT_JOBS, handleEffect, PERIODIC_JOBS, type PeriodicJob, type QueueName } from './catalog.js';
import { OutboxRelay } from './relay.js';

export interface DispatchOptions {
  pollMs: number;
  leaseMs: number;
  /** How often each periodic job runs. */
  every: Record<PeriodicJob, number>;
}

export interface Dispatch {
  /** Jobs waiting in each queue of the backend, for the metrics. */
  depths(): Promise<Record<QueueName, number>>;
  /** Stops claiming, lets running jobs finish, and closes the backend. */
  close(): Promise<void>;
}

/**
 * Starts everything that carries effects out of the outbox in this process: the consumers
 * of the backend's queues, the periodic jobs, and the relay that feeds the queues.
 */
export async function startDispatch(deps: Deps, backend: JobBackend, options: DispatchOptions, logger: Logger): Promise<Dispatch> {
  const relay = new OutboxRelay(deps, backend, logger, options);
  // A database outage is told once, by `databaseAvailability`, not by every job it fails.
  const failed = (error: unknown) => {
    throw deps.databaseAvailability.report(error) ? new DatabaseAway(error) : error;
  };
  await backend.consume({
    async effect(effect) {
      await handleEffect(deps, effect).catch(failed);
      // Fan-outs and expiries write new effects (deliveries, webhooks): send them on now.
      if (EFFECT_JOBS[effect.kind].queue === 'effects') relay.wake();
    },
    async periodic(name) {
      await PERIODIC_JOBS[name].run(deps).catch(failed);
      relay.wake();
    },
  });
  for (const [job, everyMs] of Object.entries(options.every) as [PeriodicJob, number][]) await backend.schedule(job, everyMs);
  relay.start();
  return {
    depths: () => backend.depths(),
    async close() {
      await relay.stop();
      await backend.close();
    },
  };
}

/** A job failed because the database is away: the backends retry it without a log line of its own. */
export class DatabaseAway extends Error {
  constructor(cause: unknown) {
    super('the database is unavailable', { cause });
  }
}
