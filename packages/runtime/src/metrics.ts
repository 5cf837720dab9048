import type { Database } from '@agov/db';
import type { ApprovalWaiters, EndpointBreaker, Observer, PolicyEffect } from '@agov/domain';
import type { Dispatch } from '@agov/jobs';
import type { Logger } from 'pino';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** This process's metrics, in a registry of its own so two apps in one process keep theirs apart. */
export interface Metrics {
  readonly registry: Registry;
  /** What the domain reports (`Deps.observe`), counted here. */
  readonly observer: Observer;
  /** A `POST /api/v1/evaluate` answered 200 with `decision` after `seconds`. */
  evaluated(decision: PolicyEffect, seconds: number): void;
  /**
   * Shows the waiting jobs of the dispatch this process runs, and the endpoints its deliveries
   * treat as hanging; a process without a dispatch has neither to show.
   */
  watchDispatch(dispatch: Pick<Dispatch, 'depths'>, breaker: Pick<EndpointBreaker, 'endpointsInTrouble'>): void;
}

/**
 * Both outbox gauges in one round trip. Every row is an effect not yet done (done ones are
 * deleted). A claim moves `available_at` into the future, so the due rows are the ones no
 * relay has picked up: how long the oldest has been due is the dispatch lag. Measured from
 * `available_at`, not `created_at`, so a webhook retry that just came due does not read as
 * hours of lag. The second subquery reads one entry of the `available_at` index.
 */
const OUTBOX_STATE = `
  select (select count(*) from outbox)::int as backlog,
    coalesce(extract(epoch from now() - (select min(available_at) from outbox where available_at <= now())), 0)::float8 as oldest_due_seconds`;

const EVALUATE_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

export function createMetrics(database: Database, approvalWaiters: Pick<ApprovalWaiters, 'size'>, logger: Logger): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  // Collect callbacks of one scrape run together, so the two gauges share one query.
  const readOutbox = sharedWhileRunning(
    tolerant('the outbox', logger, async () => (await database.rows<{ backlog: number; oldest_due_seconds: number }>(OUTBOX_STATE))[0]!),
  );
  new Gauge({
    name: 'agov_outbox_backlog',
    help: 'Outbox rows: effects not yet done, due or not.',
    registers: [registry],
    aggregator: 'first', // read from the database: every API process reads the same
    async collect() {
      const state = await readOutbox();
      if (state) this.set(state.backlog);
      else this.remove(); // no sample rather than a stale or made-up one
    },
  });
  new Gauge({
    name: 'agov_outbox_oldest_age_seconds',
    help: 'How long the longest-waiting due outbox row has waited to be claimed (0 when none is due).',
    registers: [registry],
    aggregator: 'first',
    async collect() {
      const state = await readOutbox();
      if (state) this.set(state.oldest_due_seconds);
      else this.remove();
    },
  });

  new Gauge({
    name: 'agov_approval_status_waits',
    help: "Requests of this process long-polling an approval's status (?wait=N).",
    registers: [registry],
    collect() {
      this.set(approvalWaiters.size);
    },
  });

  const deliveries = new Counter({
    name: 'agov_webhook_deliveries_total',
    help: 'Webhook delivery attempts recorded, by where each left its delivery.',
    labelNames: ['outcome'],
    registers: [registry],
  });
  // Every outcome is reported from the start, so rates and alerts see a zero, not a gap.
  for (const outcome of ['delivered', 'retrying', 'failed'] as const) deliveries.inc({ outcome }, 0);

  const evaluations = new Histogram({
    name: 'agov_evaluate_duration_seconds',
    help: 'Time to answer POST /api/v1/evaluate with 200, by decision.',
    labelNames: ['decision'],
    buckets: EVALUATE_BUCKETS,
    registers: [registry],
  });

  return {
    registry,
    observer: { deliveryAttempted: (outcome) => deliveries.inc({ outcome }) },
    evaluated: (decision, seconds) => evaluations.observe({ decision }, seconds),
    watchDispatch(dispatch, breaker) {
      const readDepths = tolerant('the job queues', logger, () => dispatch.depths());
      new Gauge({
        name: 'agov_queue_depth',
        help: "Jobs waiting in this process's job backend, by queue.",
        labelNames: ['queue'],
        registers: [registry],
        async collect() {
          const depths = await readDepths();
          this.reset();
          for (const [queue, depth] of Object.entries(depths ?? {})) this.set({ queue }, depth);
        },
      });
      new Gauge({
        name: 'agov_webhook_endpoints_timing_out',
        help: 'Endpoints this process sends one probe at a time, or refuses for now, because a post to them timed out.',
        registers: [registry],
        collect() {
          this.set(breaker.endpointsInTrouble);
        },
      });
    },
  };
}

/** A failing source leaves its metrics out of the scrape instead of failing it; logged once per outage. */
function tolerant<T>(source: string, logger: Logger, read: () => Promise<T>): () => Promise<T | null> {
  let failing = false;
  return async () => {
    try {
      const value = await read();
      failing = false;
      return value;
    } catch (error) {
      if (!failing) logger.warn({ err: error }, `metrics: cannot read ${source}; its metrics are left out until it answers`);
      failing = true;
      return null;
    }
  };
}

/** Callers that arrive while a read is running get that read, not a new one. */
function sharedWhileRunning<T>(read: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | null = null;
  return () =>
    (running ??= read().finally(() => {
      running = null;
    }));
}
