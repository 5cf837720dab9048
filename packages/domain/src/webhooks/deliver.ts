import type { Deps } from '../deps.js';
import { completeEffect, type DueEffect } from '../outbox.js';
import type { Envelope } from './fan-out.js';
import { afterAttempt, type DeliveryStatus } from './retry.js';
import { deliveryHeaders } from './signing.js';

interface Loaded {
  id: string;
  status: DeliveryStatus;
  attempts: number;
  /** A retry is scheduled later than now. */
  early: boolean;
  payload: Envelope;
  url: string;
  secret: string;
  is_active: boolean;
}

// Deliveries are the busiest jobs: one constant, prepared statement to read, one to record.
// Times travel as ISO text, the same through either driver.
const LOAD = `
  select d.id, d.status, d.attempts, coalesce(d.next_retry_at > $3::timestamptz, false) as early, d.payload, e.url, e.secret, e.is_active
  from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
  where d.id = $1 and d.tenant_id = $2`;

/**
 * Records an attempt and moves the outbox row with it: due again at the next retry, or
 * retired. Conditional on the attempt count read before sending, so of two runs of the same
 * attempt (a worker presumed dead that was only slow) one records it and owns the row; the
 * other changes nothing. Returns whether this run recorded it.
 */
const RECORD = `
  with moved as (
    update webhook_deliveries
    set status = $3, attempts = $4, http_status = $5, last_error = $6, delivered_at = $7::timestamptz, next_retry_at = $8::timestamptz
    where id = $1 and attempts = $9 and status in ('pending', 'retrying')
    returning id
  ), retired as (
    delete from outbox where id = $2 and $8::timestamptz is null and exists (select 1 from moved)
  ), postponed as (
    update outbox set available_at = $8, last_error = $6 where id = $2 and $8::timestamptz is not null and exists (select 1 from moved)
  )
  select count(*)::int as recorded from moved`;

/**
 * Makes one attempt at a delivery: signs the envelope with the endpoint's secret (read now,
 * never carried in a job), posts it, and records the attempt. The same delivery id goes out
 * on every attempt, so receivers can de-duplicate.
 */
export async function deliverWebhook(deps: Deps, effect: DueEffect): Promise<void> {
  const { delivery_id: deliveryId } = effect.payload as { delivery_id: string };
  const now = deps.clock.now();
  const [delivery] = await deps.database.prepared<Loaded>(LOAD, [deliveryId, effect.tenantId, now.toISOString()]);

  // Deleted with its endpoint, or finished by an earlier run of this same job.
  if (!delivery || delivery.status === 'delivered' || delivery.status === 'failed') return completeEffect(deps.database.db, effect.id);
  // A stray duplicate of an earlier attempt: the row is due again at the retry time, not now.
  if (delivery.early) return;
  if (!delivery.is_active) {
    // Inactive endpoints receive nothing; what was queued for them is given up, not held.
    await record(
      deps,
      effect.id,
      delivery,
      { status: 'failed', attempts: delivery.attempts, nextRetryAt: null },
      { httpStatus: null, error: 'endpoint is inactive' },
      null,
    );
    return;
  }

  const envelope = delivery.payload;
  // The envelope's fields in the spec's order; the signature covers exactly these bytes.
  const body = JSON.stringify({
    id: envelope.id,
    event: envelope.event,
    timestamp: envelope.timestamp,
    tenant_id: envelope.tenant_id,
    data: envelope.data,
  });
  const result = await deps.webhooks.transport.post({
    url: delivery.url,
    body,
    headers: deliveryHeaders(delivery.secret, delivery.id, body, now),
    timeoutMs: deps.webhooks.timeoutMs,
  });
  const finishedAt = deps.clock.now();
  const next = afterAttempt(delivery.attempts, result.ok, deps.webhooks.retryDelaysMs, finishedAt);
  // Counted once committed, and by the one run that recorded the attempt.
  if (await record(deps, effect.id, delivery, next, result, next.status === 'delivered' ? finishedAt : null))
    deps.observe.deliveryAttempted(next.status);
}

async function record(
  deps: Deps,
  effectId: string,
  delivery: Loaded,
  next: ReturnType<typeof afterAttempt>,
  result: { httpStatus: number | null; error: string | null },
  deliveredAt: Date | null,
): Promise<boolean> {
  const [row] = await deps.database.prepared<{ recorded: number }>(RECORD, [
    delivery.id,
    effectId,
    next.status,
    next.attempts,
    result.httpStatus,
    result.error,
    deliveredAt?.toISOString() ?? null,
    next.nextRetryAt?.toISOString() ?? null,
    delivery.attempts,
  ]);
  return row!.recorded === 1;
}
