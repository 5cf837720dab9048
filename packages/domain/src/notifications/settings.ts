import { transactionInvalidating } from '../caches/invalidation.js';
import { eq } from 'drizzle-orm';
import { notificationSettings, type Executor } from '@agov/db';
import type { Principal } from '../access/access.js';
import type { NotificationDeps } from './deps.js';
import { AppError } from '../support/errors.js';
import { requestConfirmations, unconfirmedAmong } from './confirmations.js';

/** Whether approval e-mails go out, and to whom: reviewers at once, escalation addresses when a request is escalated. */
export interface NotificationSettings {
  emailEnabled: boolean;
  reviewerEmails: string[];
  escalationEmails: string[];
}

/** The settings as an admin sees them: also which listed addresses (of either list) still await their owner's confirmation. */
export interface NotificationSettingsView extends NotificationSettings {
  unconfirmedEmails: string[];
}

export interface NotificationSettingsInput {
  email_enabled: boolean;
  reviewer_emails: string[];
  /** Left out: nobody (a PUT replaces every setting). */
  escalation_emails?: string[];
}

/** What a tenant that never saved its settings has: e-mail off, nobody listed. */
const NEVER_SAVED: NotificationSettings = { emailEnabled: false, reviewerEmails: [], escalationEmails: [] };

export async function getNotificationSettings(deps: NotificationDeps, principal: Principal): Promise<NotificationSettingsView> {
  return viewOf(deps.database.db, principal.tenantId, await notificationSettingsOf(deps.database.db, principal.tenantId));
}

async function viewOf(executor: Executor, tenantId: string, settings: NotificationSettings): Promise<NotificationSettingsView> {
  return { ...settings, unconfirmedEmails: await unconfirmedAmong(executor, tenantId, listed(settings)) };
}

const SETTINGS_COLUMNS = {
  emailEnabled: notificationSettings.emailEnabled,
  reviewerEmails: notificationSettings.reviewerEmails,
  escalationEmails: notificationSettings.escalationEmails,
};

/** Every address either list names, each once as first written: each must be confirmed before it gets mail. */
const listed = (settings: NotificationSettings) => withoutDuplicates([...settings.reviewerEmails, ...settings.escalationEmails]);

/** The tenant's settings as stored now, or the defaults. */
export async function notificationSettingsOf(executor: Executor, tenantId: string): Promise<NotificationSettings> {
  const [row] = await executor.select(SETTINGS_COLUMNS).from(notificationSettings).where(eq(notificationSettings.tenantId, tenantId));
  return row ?? NEVER_SAVED;
}

/**
 * Replaces the settings. An address listed twice in one list, in any letter case, is kept once as first
 * written. Switching e-mail on with nobody to send it to is refused: it would look enabled
 * and send nothing. Each listed address not confirmed for this tenant is asked to confirm, in
 * the same transaction (see confirmations.ts).
 */
export async function saveNotificationSettings(
  deps: NotificationDeps,
  principal: Principal,
  input: NotificationSettingsInput,
): Promise<NotificationSettingsView> {
  const reviewerEmails = withoutDuplicates(input.reviewer_emails);
  if (input.email_enabled && reviewerEmails.length === 0) {
    const message = 'must list at least one address when email_enabled is true';
    throw new AppError('validation_error', `Invalid body: reviewer_emails ${message}`, { fields: [{ field: 'reviewer_emails', message }] });
  }
  const now = deps.clock.now();
  const saved = {
    emailEnabled: input.email_enabled,
    reviewerEmails,
    escalationEmails: withoutDuplicates(input.escalation_emails ?? []),
    updatedAt: now,
  };
  return transactionInvalidating(deps, async (tx, invalidate) => {
    invalidate({ kind: 'effect_audience', id: principal.tenantId });
    const [row] = await tx
      .insert(notificationSettings)
      .values({ tenantId: principal.tenantId, ...saved })
      .onConflictDoUpdate({ target: notificationSettings.tenantId, set: saved })
      .returning(SETTINGS_COLUMNS);
    await requestConfirmations(tx, principal.tenantId, listed(row!), now);
    return viewOf(tx, principal.tenantId, row!);
  });
}

function withoutDuplicates(addresses: readonly string[]): string[] {
  const seen = new Set<string>();
  return addresses.filter((address) => {
    const key = address.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
