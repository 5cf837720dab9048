import { boolean, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
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
  updatedAt: at('updated_at').notNull().defaultNow(),
});

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
