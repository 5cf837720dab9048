import { and, count, eq, gt, lte, min } from 'drizzle-orm';
import { auditBatchCursors, traceEvents, webhookEndpoints } from '@agov/db';
import type { WebhookDeps } from './deps.js';
import { subscribedTo } from '../outbox/audience.js';
import { recordEffects } from '../outbox/record.js';

/**
 * Events are stamped before they commit; a batch ends this far in the past so that an event
 * still committing when the batch is counted falls into the next one, not into neither.
 */
const SETTLE_MS = 2_000;

/**
 * Announces `audit.batch` (data `{from, to, event_count}`) to every tenant subscribed to it
 * that has recorded events since its last batch, and moves its cursor: batches are
 * contiguous, each `from` the previous `to`. Run every
 * `AUDIT_BATCH_INTERVAL_MS`; a duplicate run finds the cursor moved and announces nothing.
 */
export async function announceAuditBatches(deps: WebhookDeps): Promise<number> {
  const now = deps.clock.now();
  const to = new Date(now.getTime() - SETTLE_MS);
  const subscribers = await deps.database.db
    .select({ tenantId: webhookEndpoints.tenantId, since: min(webhookEndpoints.createdAt) })
    .from(webhookEndpoints)
    .where(subscribedTo('audit.batch'))
    .groupBy(webhookEndpoints.tenantId);

  let announced = 0;
  for (const { tenantId, since } of subscribers) {
    const sent = await deps.database.db.transaction(async (tx) => {
      await tx
        .insert(auditBatchCursors)
        .values({ tenantId, reachedAt: since ?? to })
        .onConflictDoNothing();
      const [cursor] = await tx.select().from(auditBatchCursors).where(eq(auditBatchCursors.tenantId, tenantId)).for('update');
      const from = cursor!.reachedAt;
      if (from >= to) return false;
      const [counted] = await tx
        .select({ total: count() })
        .from(traceEvents)
        .where(and(eq(traceEvents.tenantId, tenantId), gt(traceEvents.timestamp, from), lte(traceEvents.timestamp, to)));
      const eventCount = counted?.total ?? 0;
      // Nothing new: the cursor stays, so each batch starts where the last one announced ended.
      if (eventCount === 0) return false;
      await tx.update(auditBatchCursors).set({ reachedAt: to }).where(eq(auditBatchCursors.tenantId, tenantId));
      const data = { from: from.toISOString(), to: to.toISOString(), event_count: eventCount };
      await recordEffects(tx, tenantId, [{ kind: 'webhook', event: 'audit.batch', data }], now);
      return true;
    });
    if (sent) announced += 1;
  }
  return announced;
}
