import {
  announceAuditBatches,
  deleteExpiredIdempotencyKeys,
  deliverWebhooks,
  escalateOnSchedule,
  expireDueApprovals,
  expireOnSchedule,
  fanOutAuditEvents,
  foldTallies,
  postApprovalCard,
  postEscalationCard,
  sendApprovalEmail,
  sendEmailConfirmation,
  sendEscalationEmail,
  type Deps,
  type DueEffect,
  type EffectKind,
  updateApprovalCard,
} from '@agov/domain';

/**
 * Three queues, so slow receivers never hold up the fast fan-outs and expiries that create
 * their work, and webhook batches (many requests each) and single e-mails and chat cards
 * never take each other's turns.
 */
export const QUEUES = ['effects', 'webhooks', 'deliveries'] as const;
export type QueueName = (typeof QUEUES)[number];

/** Webhooks are not handled by a job: the relay fans them out into deliveries as it claims them. */
export type HandledKind = Exclude<EffectKind, 'webhook'>;

interface EffectJob<K extends HandledKind> {
  queue: QueueName;
  /** Does the effect and retires or reschedules its outbox row. */
  handle(deps: Deps, effect: DueEffect<K>): Promise<unknown>;
}

/**
 * The job catalog: each kind of outbox row that travels as a job, its queue and its handler.
 * A job carries the row's id and the ids it concerns; handlers read everything else, secrets
 * included, from the database when they run.
 */
export const EFFECT_JOBS: { readonly [K in HandledKind]: EffectJob<K> } = {
  audit_events: { queue: 'effects', handle: fanOutAuditEvents },
  approval_expiry: { queue: 'effects', handle: expireOnSchedule },
  approval_escalation: { queue: 'effects', handle: escalateOnSchedule },
  webhook_delivery: { queue: 'webhooks', handle: deliverWebhooks },
  chat_card: { queue: 'deliveries', handle: postApprovalCard },
  chat_card_update: { queue: 'deliveries', handle: updateApprovalCard },
  approval_email: { queue: 'deliveries', handle: sendApprovalEmail },
  email_confirmation: { queue: 'deliveries', handle: sendEmailConfirmation },
  escalation_email: { queue: 'deliveries', handle: sendEscalationEmail },
  escalation_chat: { queue: 'deliveries', handle: postEscalationCard },
};

export const HANDLED_KINDS = Object.keys(EFFECT_JOBS) as HandledKind[];

/** Runs a claimed effect's handler: the catalog's entry for its kind. */
export function handleEffect<K extends HandledKind>(deps: Deps, effect: DueEffect<K>): Promise<unknown> {
  return EFFECT_JOBS[effect.kind].handle(deps, effect);
}

/** Jobs that run on a timer rather than from the outbox; a missed run is made up by the next. */
export const PERIODIC_JOBS = {
  audit_batch: { queue: 'effects', run: announceAuditBatches },
  // A backstop behind each approval's own expiry effect: whatever is past due, 500 a run.
  approval_expiry_sweep: { queue: 'effects', run: (deps: Deps) => expireDueApprovals(deps) },
  // Idempotency keys past their 24 hours, 1 000 a statement until none are left.
  idempotency_key_sweep: { queue: 'effects', run: (deps: Deps) => deleteExpiredIdempotencyKeys(deps) },
  // The tallies' changes added in: totals are exact without it, and cheaper to read with it.
  tally_fold: { queue: 'effects', run: foldTallies },
} as const satisfies Record<string, { queue: QueueName; run(deps: Deps): Promise<unknown> }>;

export type PeriodicJob = keyof typeof PERIODIC_JOBS;
