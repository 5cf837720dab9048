import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { at, createdAt, id } from './columns.js';

export const tenants = pgTable(
  'tenants',
  {
    id: id(),
    name: text('name').notNull(),
    /** The tenant that `X-Dev-Bypass` acts in; there is at most one. */
    isDevelopment: boolean('is_development').notNull().default(false),
    /** Whether evaluate signs an execution grant for every `allow` it decides (grants/). */
    issueGrantsOnAllow: boolean('issue_grants_on_allow').notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('tenants_one_development').on(t.isDevelopment).where(sql`${t.isDevelopment}`)],
);

export const users = pgTable(
  'users',
  {
    id: id(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    name: text('name').notNull(),
    role: text('role', { enum: ['admin', 'reviewer', 'viewer'] }).notNull(),
    passwordHash: text('password_hash').notNull(),
    createdAt: createdAt(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [
    // E-mail identifies a person at sign-in, so it is unique across tenants.
    uniqueIndex('users_email').on(sql`lower(${t.email})`),
    index('users_tenant').on(t.tenantId, t.createdAt),
  ],
);

export const sessions = pgTable(
  'sessions',
  {
    id: id(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    createdAt: createdAt(),
    expiresAt: at('expires_at').notNull(),
  },
  (t) => [uniqueIndex('sessions_token_hash').on(t.tokenHash), index('sessions_user').on(t.userId)],
);

export const apiKeys = pgTable(
  'api_keys',
  {
    id: id(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** SHA-256 of the key, hex. The key itself is never stored. */
    keyHash: text('key_hash').notNull(),
    prefix: text('prefix').notNull(),
    scopes: text('scopes').array().notNull(),
    lastUsedAt: at('last_used_at'),
    createdAt: createdAt(),
    expiresAt: at('expires_at'),
  },
  (t) => [uniqueIndex('api_keys_key_hash').on(t.keyHash), index('api_keys_tenant').on(t.tenantId, t.createdAt)],
);

export type TenantRow = typeof tenants.$inferSelect;
export type UserRow = typeof users.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
