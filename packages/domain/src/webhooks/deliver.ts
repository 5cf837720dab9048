import type { WebhookDeps } from './deps.js';
import type { DueEffect } from '../outbox/effects.js';
import { completeEffect, postponeEffect } from '../outbox/record.js';
import type { SendFailure, SendResult } from '../support/send-result.js';
import type { LoadedDelivery } from './delivery-store.js';
import { webhookSigningSecret } from './endpoints.js';
import { afterAttempt, type AttemptOutcome } from '../outbox/retry.js';
import type { OutboundResult } from './transport.js';
import { deliveryHeaders } from './signing.js';

/** How long a delivery held back from a hanging endpoint waits before its job runs again. */
const HOLD_MS = 1_000;

/**
 * Attempts each delivery of the batch once, at the same time: signs the envelope with the
 * endpoint's secret (read now, never carried in a job), posts it, and records the attempt. The
 * same delivery id goes out on every attempt, so receivers can de-duplicate. Once every attempt
 * is recorded, a retry with a row of its own, the batch's row goes; if this run dies first, the
 * row comes due again and the run after it skips what was recorded. Deliveries held back from
 * a hanging endpoint (see EndpointBreaker) are left as they are, and the row comes due again
 * for them shortly.
 */
export async function deliverWebhooks(deps: WebhookDeps, effect: DueEffect<'webhook_delivery'>): Promise<void> {
  const { delivery_ids: deliveryIds } = effect.payload;
  const outcomes = await Promise.all(deliveryIds.map((deliveryId) => attemptDelivery(deps, effect.tenantId, deliveryId)));
  if (!outcomes.includes('held')) return completeEffect(deps.database.db, effect.id);
  const holdMs = Math.min(HOLD_MS, deps.webhooks.timeoutMs);
  await postponeEffect(deps.database.db, effect.id, new Date(deps.clock.now().getTime() + holdMs), 'held: its endpoint is being probed');
}

async function attemptDelivery(deps: WebhookDeps, tenantId: string, deliveryId: string): Promise<'done' | 'held'> {
  const now = deps.clock.now();
  const delivery = await deps.webhooks.deliveries.load.submit({ id: deliveryId, tenantId });

  // Deleted with its endpoint, or finished by an earlier run of this same job.
  if (!delivery || delivery.status === 'delivered' || delivery.status === 'failed') return 'done';
  // Attempted by an earlier run already: its retry has a row of its own, due later.
  if (delivery.nextRetryAtMs !== null && delivery.nextRetryAtMs > now.getTime()) return 'done';
  if (!delivery.isActive) {
    // Inactive endpoints receive nothing; what was queued for them is given up, not held.
    const givenUp = { status: 'failed', attempts: delivery.attempts, nextRetryAt: null } as const;
    await record(deps, delivery, givenUp, { ok: false, error: 'endpoint is inactive' }, now);
    return 'done';
  }

  const admission = deps.webhooks.breaker.admit(delivery.endpointId, now.getTime());
  if (admission === 'hold') return 'held';
  const result = admission === 'refuse' ? REFUSED : await send(deps, delivery, admission, now);
  const finishedAt = deps.clock.now();
  const next = afterAttempt(delivery.attempts, result.ok, deps.webhooks.retryDelaysMs, finishedAt);
  // Counted once committed, and by the one run that recorded the attempt.
  if (await record(deps, delivery, next, result, finishedAt)) deps.observe.deliveryAttempted(next.status);
  return 'done';
}

/** An attempt the breaker fails at once: the post would only have timed out. */
const REFUSED: SendFailure = { ok: false, error: 'not sent: the endpoint timed out on an earlier delivery' };

/** Signs and posts the delivery, and tells the breaker how the post ended, whatever happens. */
async function send(deps: WebhookDeps, delivery: LoadedDelivery, admission: 'send' | 'probe', now: Date): Promise<OutboundResult> {
  const envelope = delivery.payload;
  // The envelope's fields in the spec's order; the signature covers exactly these bytes.
  const body = JSON.stringify({
    id: envelope.id,
    event: envelope.event,
    timestamp: envelope.timestamp,
    tenant_id: envelope.tenant_id,
    data: envelope.data,
  });
  let timedOut = false;
  try {
    const result = await deps.webhooks.transport.post({
      url: delivery.url,
      body,
      headers: deliveryHeaders(webhookSigningSecret(deps, { id: delivery.endpointId, secret: delivery.secret }), delivery.id, body, now),
      timeoutMs: deps.webhooks.timeoutMs,
    });
    timedOut = !result.ok && result.timedOut === true;
    return result;
  } finally {
    deps.webhooks.breaker.settle(delivery.endpointId, admission, timedOut, deps.clock.now().getTime());
  }
}

/** Records the attempt; returns whether this run recorded it. */
function record(
  deps: WebhookDeps,
  delivery: LoadedDelivery,
  outcome: AttemptOutcome,
  result: SendResult<{ status: number }>,
  finishedAt: Date,
): Promise<boolean> {
  return deps.webhooks.deliveries.record.submit({
    deliveryId: delivery.id,
    attemptsBefore: delivery.attempts,
    outcome,
    httpStatus: result.status ?? null,
    error: result.ok ? null : result.error,
    finishedAt,
  });
}
