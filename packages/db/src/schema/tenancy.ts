import { sql } from 'drizzle-orm';
import { boolean, index, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
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
  /** When the subscription last became `past_due`; its paid limits hold for a grace period from then. */
  pastDueSince: at('past_due_since'),
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
  /** Told of a request still pending at its `escalate_at`; confirmed like reviewers before they get mail. */
  escalationEmails: text('escalation_emails').array().notNull().default([]),
  updatedAt: at('updated_at').notNull().defaultNow(),
});

export const chatIntegrations = pgTable(
  'chat_integrations',
  {
    tenantId: uuid('tenant_id')
      .primaryKey()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    mode: text('mode', { enum: ['incoming_webhook', 'bot'] }).notNull(),
    enabled: boolean('enabled').notNull().default(true),
    /** Mode-specific settings; secrets inside are never returned by the API. */
    settings: jsonb('settings').$type<Record<string, string>>().notNull(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  // A chat callback names its workspace; only the integrations of that team check its signature.
  (t) => [index('chat_integrations_bot_team').on(sql`(${t.settings} ->> 'team_id')`).where(sql`${t.mode} = 'bot' and ${t.enabled}`)],
);

/**
 * A reviewer address confirmed by its owner, per tenant: approval mail goes only to confirmed
 * addresses. The token that confirms it is stored as a hash and used once.
 */
export const emailConfirmations = pgTable(
  'email_confirmations',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    /** Lower-cased, as addresses are compared. */
    email: text('email').notNull(),
    tokenHash: text('token_hash'),
    sentAt: at('sent_at'),
    confirmedAt: at('confirmed_at'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.email] }),
    uniqueIndex('email_confirmations_token').on(t.tokenHash),
    // At most one confirmation mail per address per day, whichever tenant asks.
    index('email_confirmations_email_sent').on(t.email, t.sentAt),
  ],
);

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
