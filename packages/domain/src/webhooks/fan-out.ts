import { randomUUID } from 'node:crypto';
import { and, asc, between, eq } from 'drizzle-orm';
import { traceEvents, traces, webhookDeliveries, webhookEndpoints, type Tx } from '@agov/db';
import type { WebhookDeps } from './deps.js';
import { endpointsSubscribed } from '../outbox/audience.js';
import { deliveryEffects, type DueEffect, type Envelope } from '../outbox/effects.js';
import { completeEffect, recordEffects } from '../outbox/record.js';
import { presentAuditExportRow } from '../presenters/traces.js';

/**
 * Events seq from..to of a trace, each as an `audit.event` webhook (CONTRACT: data
 * `{event: <audit export row>}`), one delivery per subscribed endpoint, each with its own
 * outbox row; the source row is retired in the same transaction, so a crash leaves either
 * the source or every delivery, never half. (Other webhooks carry their data already and
 * are fanned out by the relay itself.)
 */
export async function fanOutAuditEvents(deps: WebhookDeps, row: DueEffect<'audit_events'>): Promise<number> {
  const { trace_id: traceId, from_seq: fromSeq, to_seq: toSeq } = row.payload;
  return deps.database.db.transaction(async (tx) => {
    const events = await tx
      .select({ event: traceEvents, agentId: traces.agentId })
      .from(traceEvents)
      .innerJoin(traces, eq(traces.id, traceEvents.traceId))
      .where(and(eq(traceEvents.traceId, traceId), eq(traceEvents.tenantId, row.tenantId), between(traceEvents.seq, fromSeq, toSeq)))
      .orderBy(asc(traceEvents.seq));
    const now = deps.clock.now().toISOString();
    const envelopes = events.map(
      ({ event, agentId }): Envelope => ({
        id: randomUUID(),
        event: 'audit.event',
        timestamp: now,
        tenant_id: row.tenantId,
        data: { event: presentAuditExportRow(event, agentId) },
      }),
    );
    const created = await createDeliveries(tx, deps, row.tenantId, envelopes);
    await completeEffect(tx, row.id);
    return created;
  });
}

async function createDeliveries(tx: Tx, deps: WebhookDeps, tenantId: string, envelopes: readonly Envelope[]): Promise<number> {
  if (envelopes.length === 0) return 0;
  // Locked, as the relay's claim locks them: an endpoint being deleted gets no delivery.
  const endpoints = await tx
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(endpointsSubscribed(tenantId, 'audit.event'))
    .for('key share');
  if (endpoints.length === 0) return 0;

  const now = deps.clock.now();
  const deliveries = endpoints.flatMap((endpoint) =>
    envelopes.map((envelope) => ({
      id: randomUUID(),
      tenantId,
      endpointId: endpoint.id,
      eventId: envelope.id,
      eventType: envelope.event,
      payload: envelope,
      createdAt: now,
    })),
  );
  await tx.insert(webhookDeliveries).values(deliveries);
  await recordEffects(tx, tenantId, deliveryEffects(deliveries.map((d) => d.id)), now);
  return deliveries.length;
}
