import { index, integer, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { at } from './columns.js';
import { tenants } from './identity.js';

/**
 * The first answer to a request sent with an `Idempotency-Key`, per tenant and key, so that
 * a retry gets it again instead of doing the work twice (packages/domain/src/idempotency).
 * A row is `in_progress` while its request runs, under a lease; `done` once the answer is
 * stored. Rows are kept 24 hours, then taken over by a new request or deleted by the sweep.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    /** Hex SHA-256 of the method, the path as requested and the raw body. */
    fingerprint: text('fingerprint').notNull(),
    /** Which request holds the row: only it may store an answer or let the key go. */
    claimId: uuid('claim_id').notNull(),
    state: text('state', { enum: ['in_progress', 'done'] }).notNull(),
    status: integer('status'),
    headers: jsonb('headers').$type<Record<string, string>>(),
    body: text('body'),
    createdAt: at('created_at').notNull(),
    expiresAt: at('expires_at').notNull(),
    /** Until when an `in_progress` row belongs to its request; past it, a retry takes the key over. */
    lockedUntil: at('locked_until').notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.key] }), index('idempotency_keys_expiry').on(t.expiresAt)],
);

export type IdempotencyKeyRow = typeof idempotencyKeys.$inferSelect;
