import { boolean, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { approvalRequests } from './approvals.js';
import { at, createdAt } from './columns.js';
import { tenants } from './identity.js';

export const subscriptions = pgTable('subscriptions', {
  tenantId: uuid('tenant_id')
    .primaryKey()
    .references(() => tenants.id, { onDelete: 'cascade' }),
  plan: text('plan', { enum: ['free', 'starter', 'business', 'enterprise'] })
    .notNull()
    .default('free'),
  status: text('status', { enum: ['active', 'canceled', 'past_due'] })
    .notNull()
    .default('active'),
  currentPeriodEnd: at('current_period_end').notNull(),
  cancelAtPeriodEnd: boolean('cancel_at_period_end').notNull().default(false),
  providerCustomerId: text('provider_customer_id'),
  providerSubscriptionId: text('provider_subscription_id'),
  /** `created` of the last provider event applied: an older event arriving late changes nothing. */
  providerEventAt: at('provider_event_at'),
  updatedAt: at('updated_at').notNull().defaultNow(),
});

export type SubscriptionRow = typeof subscriptions.$inferSelect;

/** Payment-provider events already applied; the provider retries, each is applied once. */
export const billingEvents = pgTable('billing_events', {
  id: text('id').primaryKey(),
  type: text('type').notNull(),
  receivedAt: createdAt(),
});

export const notificationSettings = pgTable('notification_settings', {
  tenantId: uuid('tenant_id')
    .primaryKey()
    .references(() => tenants.id, { onDelete: 'cascade' }),
  emailEnabled: boolean('email_enabled').notNull().default(false),
  reviewerEmails: text('reviewer_emails').array().notNull().default([]),
  updatedAt: at('updated_at').notNull().defaultNow(),
});

export const chatIntegrations = pgTable('chat_integrations', {
  tenantId: uuid('tenant_id')
    .primaryKey()
    .references(() => tenants.id, { onDelete: 'cascade' }),
  mode: text('mode', { enum: ['incoming_webhook', 'bot'] }).notNull(),
  enabled: boolean('enabled').notNull().default(true),
  /** Mode-specific settings; secrets inside are never returned by the API. */
  settings: jsonb('settings').$type<Record<string, string>>().notNull(),
  updatedAt: at('updated_at').notNull().defaultNow(),
});

/** The chat card posted for an approval (bot mode), so a decision can update it in place. */
export const chatMessages = pgTable('chat_messages', {
  approvalId: uuid('approval_id')
    .primaryKey()
    .references(() => approvalRequests.id, { onDelete: 'cascade' }),
  tenantId: uuid('tenant_id')
    .notNull()
    .references(() => tenants.id, { onDelete: 'cascade' }),
  channel: text('channel').notNull(),
  ts: text('ts').notNull(),
  createdAt: createdAt(),
});
