import { and, eq, inArray } from 'drizzle-orm';
import { webhookDeliveries, webhookEndpoints } from '@agov/db';
import type { Deps } from '../deps.js';
import { completeEffect, postponeEffect, type OutboxRow } from '../outbox.js';
import type { Envelope } from './fan-out.js';
import { afterAttempt } from './retry.js';
import { deliveryHeaders } from './signing.js';

/**
 * Makes one attempt at a delivery: signs the envelope with the endpoint's secret (read now,
 * never carried in a job), posts it, and records the attempt. A failure leaves the outbox row
 * due again at `next_retry_at`; delivered, failed or no longer deliverable retires it.
 * The same delivery id goes out on every attempt, so receivers can de-duplicate.
 */
export async function deliverWebhook(deps: Deps, row: OutboxRow): Promise<void> {
  const { delivery_id: deliveryId } = row.payload as { delivery_id: string };
  const [found] = await deps.database.db
    .select({ delivery: webhookDeliveries, endpoint: { url: webhookEndpoints.url, secret: webhookEndpoints.secret, isActive: webhookEndpoints.isActive } })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.tenantId, row.tenantId)));

  // Deleted with its endpoint, or finished by an earlier run of this same job.
  if (!found || found.delivery.status === 'delivered' || found.delivery.status === 'failed') {
    return completeEffect(deps.database.db, row.id);
  }
  const { delivery, endpoint } = found;
  if (!endpoint.isActive) {
    // Inactive endpoints receive nothing; what was queued for them is given up, not held.
    await deps.database.db.transaction(async (tx) => {
      await tx.update(webhookDeliveries).set({ status: 'failed', nextRetryAt: null, lastError: 'endpoint is inactive' }).where(eq(webhookDeliveries.id, delivery.id));
      await completeEffect(tx, row.id);
    });
    return;
  }

  const envelope = delivery.payload as unknown as Envelope;
  // The envelope's fields in the spec's order; the signature covers exactly these bytes.
  const body = JSON.stringify({ id: envelope.id, event: envelope.event, timestamp: envelope.timestamp, tenant_id: envelope.tenant_id, data: envelope.data });
  const sentAt = deps.clock.now();
  const result = await deps.webhooks.transport.post({
    url: endpoint.url,
    body,
    headers: deliveryHeaders(endpoint.secret, delivery.id, body, sentAt),
    timeoutMs: deps.webhooks.timeoutMs,
  });

  const now = deps.clock.now();
  const next = afterAttempt(delivery.attempts, result.ok, deps.webhooks.retryDelaysMs, now);
  const recorded = await deps.database.db.transaction(async (tx) => {
    // Conditional on the attempt count read above: of two runs of the same attempt (a worker
    // presumed dead that was only slow), one records it and owns the row; the other leaves both.
    const [moved] = await tx
      .update(webhookDeliveries)
      .set({
        status: next.status,
        attempts: next.attempts,
        httpStatus: result.httpStatus,
        lastError: result.error,
        deliveredAt: next.status === 'delivered' ? now : null,
        nextRetryAt: next.nextRetryAt,
      })
      .where(and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.attempts, delivery.attempts), inArray(webhookDeliveries.status, ['pending', 'retrying'])))
      .returning({ id: webhookDeliveries.id });
    if (!moved) return false;
    if (next.nextRetryAt) await postponeEffect(tx, row.id, next.nextRetryAt, result.error);
    else await completeEffect(tx, row.id);
    return true;
  });
  // Counted once committed, and by the one run that recorded the attempt.
  if (recorded) deps.observe.deliveryAttempted(next.status);
}
