import type { Database } from '@agov/db';
import { type BatcherOptions, StatementBatcher } from '../support/statement-batcher.js';
import type { Envelope } from '../outbox/effects.js';
import type { AttemptOutcome, DeliveryStatus } from '../outbox/retry.js';

/** A delivery as one attempt needs it, its endpoint's secret included (never carried in a job). */
export interface LoadedDelivery {
  id: string;
  status: DeliveryStatus;
  attempts: number;
  /** When a retry is scheduled, in epoch milliseconds. */
  nextRetryAtMs: number | null;
  payload: Envelope;
  endpointId: string;
  url: string;
  /** As stored: sealed (see secrets-at-rest). */
  secret: string;
  isActive: boolean;
}

/** One attempt to record. */
export interface AttemptRecord {
  deliveryId: string;
  /** The attempt count read before sending: the record is made only if nobody has moved it since. */
  attemptsBefore: number;
  outcome: AttemptOutcome;
  httpStatus: number | null;
  error: string | null;
  /** When the attempt ended: the delivered time, if it delivered. */
  finishedAt: Date;
}

/**
 * Deliveries are the busiest jobs, and concurrent ones share their statements: one reads
 * every delivery asked for meanwhile, one records every attempt finished meanwhile, in one
 * transaction (see StatementBatcher).
 */
export interface DeliveryStore {
  /** The delivery, or null if it is gone (deleted with its endpoint). */
  load: StatementBatcher<{ id: string; tenantId: string }, LoadedDelivery | null>;
  /** Whether this attempt was recorded (false: another run of the same attempt recorded it first). */
  record: StatementBatcher<AttemptRecord, boolean>;
}

/** By primary key (`any($1)`), whatever the planner guesses of the list's size. */
const LOAD = `
  select k.ord::int as ord, d.id, d.status, d.attempts,
    floor(extract(epoch from d.next_retry_at) * 1000)::float8 as "nextRetryAtMs",
    d.payload, d.endpoint_id as "endpointId", e.url, e.secret, e.is_active as "isActive"
  from unnest($1::uuid[], $2::uuid[]) with ordinality as k(id, tenant_id, ord)
  join webhook_deliveries d on d.id = k.id and d.tenant_id = k.tenant_id
  join webhook_endpoints e on e.id = d.endpoint_id
  where d.id = any($1::uuid[])`;

/**
 * Records attempts, each conditional on the attempt count read before sending, so of two runs
 * of the same attempt (a worker presumed dead that was only slow) one records it and the other
 * changes nothing. A delivery to be retried gets an outbox row of its own, due at the retry's
 * time. The id list beside the recordset (`$2`) lets the planner reach each delivery by its
 * primary key, whatever it guesses of the recordset's size.
 */
const RECORD = `
  with attempt as (
    select * from jsonb_to_recordset($1::jsonb) as a(delivery_id uuid, attempts_before int, status text,
      attempts int, http_status int, last_error text, delivered_at timestamptz, next_retry_at timestamptz)
  ), moved as (
    update webhook_deliveries d
    set status = a.status, attempts = a.attempts, http_status = a.http_status, last_error = a.last_error,
      delivered_at = a.delivered_at, next_retry_at = a.next_retry_at
    from attempt a
    where d.id = any($2::uuid[]) and d.id = a.delivery_id and d.attempts = a.attempts_before and d.status in ('pending', 'retrying')
    returning d.id, d.tenant_id, d.next_retry_at, d.last_error
  ), retries as (
    insert into outbox (tenant_id, kind, payload, available_at, last_error)
    select tenant_id, 'webhook_delivery', jsonb_build_object('delivery_ids', jsonb_build_array(id)), next_retry_at, last_error
    from moved where next_retry_at is not null
  )
  select id from moved`;

export function deliveryStore(database: Database, options: BatcherOptions): DeliveryStore {
  return {
    load: new StatementBatcher(async (keys) => {
      const rows = await database.prepared<LoadedDelivery & { ord: number }>(LOAD, [
        keys.map((key) => key.id),
        keys.map((key) => key.tenantId),
      ]);
      const found: (LoadedDelivery | null)[] = keys.map(() => null);
      for (const { ord, ...delivery } of rows) found[ord - 1] = delivery;
      return found;
    }, options),

    record: new StatementBatcher(async (attempts) => {
      const moved = await database.prepared<{ id: string }>(RECORD, [
        JSON.stringify(
          attempts.map((attempt) => ({
            delivery_id: attempt.deliveryId,
            attempts_before: attempt.attemptsBefore,
            status: attempt.outcome.status,
            attempts: attempt.outcome.attempts,
            http_status: attempt.httpStatus,
            last_error: attempt.error,
            delivered_at: attempt.outcome.status === 'delivered' ? attempt.finishedAt.toISOString() : null,
            next_retry_at: attempt.outcome.nextRetryAt?.toISOString() ?? null,
          })),
        ),
        attempts.map((attempt) => attempt.deliveryId),
      ]);
      // Two runs of one attempt in the same batch: the row moved once, and the first of them owns it.
      const unclaimed = new Set(moved.map((row) => row.id));
      return attempts.map((attempt) => unclaimed.delete(attempt.deliveryId));
    }, options),
  };
}
