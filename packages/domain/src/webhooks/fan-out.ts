import { randomUUID } from 'node:crypto';
import { and, arrayContains, asc, between, eq } from 'drizzle-orm';
import { outbox, traceEvents, traces, webhookDeliveries, webhookEndpoints, type Tx } from '@agov/db';
import type { Deps } from '../deps.js';
import { completeEffect, outboxRows, type OutboxRow, type WebhookEvent } from '../outbox.js';
import { presentAuditExportRow } from '../presenters/traces.js';

/** The envelope every webhook carries (spec "Events → Envelope"). */
export interface Envelope {
  id: string;
  event: WebhookEvent;
  timestamp: string;
  tenant_id: string;
  data: Record<string, unknown>;
}

/**
 * Turns a recorded webhook into one delivery per active endpoint of the tenant subscribed to
 * its event, each with its own outbox row, and retires the source row: all in one
 * transaction, so a crash leaves either the source or every delivery, never half.
 */
export async function fanOutWebhook(deps: Deps, row: OutboxRow): Promise<number> {
  const envelope = row.payload as unknown as Envelope;
  return deps.database.db.transaction(async (tx) => {
    const created = await createDeliveries(tx, deps, row.tenantId, [envelope]);
    await completeEffect(tx, row.id);
    return created;
  });
}

/** Events seq from..to of a trace, each as an `audit.event` webhook (CONTRACT: data `{event: <audit export row>}`). */
export async function fanOutAuditEvents(deps: Deps, row: OutboxRow): Promise<number> {
  const { trace_id: traceId, from_seq: fromSeq, to_seq: toSeq } = row.payload as { trace_id: string; from_seq: number; to_seq: number };
  return deps.database.db.transaction(async (tx) => {
    const events = await tx
      .select({ event: traceEvents, agentId: traces.agentId })
      .from(traceEvents)
      .innerJoin(traces, eq(traces.id, traceEvents.traceId))
      .where(and(eq(traceEvents.traceId, traceId), eq(traceEvents.tenantId, row.tenantId), between(traceEvents.seq, fromSeq, toSeq)))
      .orderBy(asc(traceEvents.seq));
    const now = deps.clock.now().toISOString();
    const envelopes = events.map(({ event, agentId }): Envelope => ({
      id: randomUUID(),
      event: 'audit.event',
      timestamp: now,
      tenant_id: row.tenantId,
      data: { event: presentAuditExportRow(event, agentId) },
    }));
    const created = await createDeliveries(tx, deps, row.tenantId, envelopes);
    await completeEffect(tx, row.id);
    return created;
  });
}

async function createDeliveries(tx: Tx, deps: Deps, tenantId: string, envelopes: readonly Envelope[]): Promise<number> {
  const event = envelopes[0]?.event;
  if (!event) return 0;
  const endpoints = await tx
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.tenantId, tenantId), eq(webhookEndpoints.isActive, true), arrayContains(webhookEndpoints.events, [event])));
  if (endpoints.length === 0) return 0;

  const now = deps.clock.now();
  const deliveries = endpoints.flatMap((endpoint) =>
    envelopes.map((envelope) => ({
      id: randomUUID(),
      tenantId,
      endpointId: endpoint.id,
      eventId: envelope.id,
      eventType: envelope.event,
      payload: envelope as unknown as Record<string, unknown>,
      createdAt: now,
    })),
  );
  await tx.insert(webhookDeliveries).values(deliveries);
  await tx.insert(outbox).values(outboxRows(tenantId, deliveries.map((d) => ({ kind: 'webhook_delivery', deliveryId: d.id })), now));
  return deliveries.length;
}
