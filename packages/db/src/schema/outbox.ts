import { index, integer, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { at, createdAt, id } from './columns.js';
import { tenants } from './identity.js';

/**
 * Effects that must happen after a change (webhooks, e-mail, chat cards, expiry) are written
 * here in the same transaction as the change, and dispatched from here. The queue owns
 * latency; this table owns correctness. A row lives until its effect is done, then it is
 * deleted, so the table holds only work still to do (see packages/jobs/README.md).
 */
export const outbox = pgTable(
  'outbox',
  {
    id: id(),
    // Written with evaluations: no foreign key (see traces.ts).
    tenantId: uuid('tenant_id').notNull(),
    kind: text('kind').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    /** When the row is next due: at creation, at a retry's time, or when a claim's lease runs out. */
    availableAt: at('available_at').notNull().defaultNow(),
    /** How many times the relay has claimed the row. */
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    createdAt: createdAt(),
  },
  (t) => [index('outbox_available').on(t.availableAt)],
);

/** Where each tenant's `audit.batch` notifications have reached. */
export const auditBatchCursors = pgTable('audit_batch_cursors', {
  tenantId: uuid('tenant_id')
    .primaryKey()
    .references(() => tenants.id, { onDelete: 'cascade' }),
  /** The end of the last batch announced; the next one starts here. */
  reachedAt: at('reached_at').notNull(),
});

export type OutboxRow = typeof outbox.$inferSelect;
