import {
  announceAuditBatches,
  deliverWebhook,
  expireOnSchedule,
  fanOutAuditEvents,
  fanOutWebhook,
  type Deps,
  type EffectKind,
  type OutboxRow,
} from '@agov/domain';

/**
 * Two queues, so slow HTTP deliveries never hold up the fast fan-outs and expiries that
 * create them.
 */
export const QUEUES = ['effects', 'deliveries'] as const;
export type QueueName = (typeof QUEUES)[number];

interface EffectJob {
  queue: QueueName;
  /** Does the effect and retires or reschedules its outbox row. */
  handle(deps: Deps, row: OutboxRow): Promise<unknown>;
}

/**
 * The job catalog: each kind of outbox row, the queue it travels on and its handler. Job
 * payloads carry the outbox row's id only; handlers read everything else, secrets included,
 * from the database when they run. E-mail and chat cards join with their handlers.
 */
export const EFFECT_JOBS = {
  webhook: { queue: 'effects', handle: fanOutWebhook },
  audit_events: { queue: 'effects', handle: fanOutAuditEvents },
  approval_expiry: { queue: 'effects', handle: expireOnSchedule },
  webhook_delivery: { queue: 'deliveries', handle: deliverWebhook },
} as const satisfies Partial<Record<EffectKind, EffectJob>>;

export type HandledKind = keyof typeof EFFECT_JOBS;
export const HANDLED_KINDS = Object.keys(EFFECT_JOBS) as HandledKind[];

/** Jobs that run on a timer rather than from the outbox; a missed run is made up by the next. */
export const PERIODIC_JOBS = {
  audit_batch: { queue: 'effects', run: announceAuditBatches },
} as const satisfies Record<string, { queue: QueueName; run(deps: Deps): Promise<unknown> }>;

export type PeriodicJob = keyof typeof PERIODIC_JOBS;
