import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { at, createdAt, id } from './columns.js';

/**
 * Effects that must happen after a change (webhooks, e-mail, chat cards, expiry) are written
 * here in the same transaction as the change, and dispatched from here. The queue owns
 * latency; this table owns correctness.
 */
export const outbox = pgTable(
  'outbox',
  {
    id: id(),
    // Written with evaluations: no foreign key (see traces.ts).
    tenantId: uuid('tenant_id').notNull(),
    kind: text('kind').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    availableAt: at('available_at').notNull().defaultNow(),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    createdAt: createdAt(),
    processedAt: at('processed_at'),
  },
  (t) => [index('outbox_due').on(t.availableAt).where(sql`${t.processedAt} is null`)],
);
