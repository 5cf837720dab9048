import { boolean, index, integer, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { at, createdAt, id } from './columns.js';
import { tenants } from './identity.js';

export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: id(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    events: text('events').array().notNull(),
    /** HMAC key for signing deliveries; shown once, at creation. */
    secret: text('secret').notNull(),
    isActive: boolean('is_active').notNull().default(true),
    description: text('description'),
    createdAt: createdAt(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [index('webhook_endpoints_tenant').on(t.tenantId, t.createdAt)],
);

/*
 * Written in hundreds by every claim of the relay: no foreign keys, whose checks would run once
 * per row. A tenant is never deleted (see traces.ts). An endpoint's deliveries go with it in its
 * delete's own transaction, and whatever writes deliveries first locks the endpoints it writes
 * for (`FOR KEY SHARE`, once per statement), so no delivery outlives its endpoint.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: id(),
    tenantId: uuid('tenant_id').notNull(),
    endpointId: uuid('endpoint_id').notNull(),
    /** The envelope id; the same for every attempt, so receivers can de-duplicate. */
    eventId: uuid('event_id').notNull(),
    eventType: text('event_type').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    status: text('status', { enum: ['pending', 'delivered', 'retrying', 'failed'] })
      .notNull()
      .default('pending'),
    httpStatus: integer('http_status'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    createdAt: createdAt(),
    deliveredAt: at('delivered_at'),
    nextRetryAt: at('next_retry_at'),
  },
  // Retries are timed by the outbox; a delivery is found by its id or listed by its endpoint.
  // Stored with fillfactor 50 (migration 0007): the update recording an attempt stays on its page.
  (t) => [index('webhook_deliveries_endpoint').on(t.endpointId, t.createdAt)],
);

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
