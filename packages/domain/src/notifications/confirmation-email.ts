import { and, eq, isNull } from 'drizzle-orm';
import { emailConfirmations, tenants } from '@agov/db';
import type { NotificationDeps } from './deps.js';
import type { DueEffect } from '../outbox/effects.js';
import { completeEffect, isAttemptDue, recordFailedAttempt } from '../outbox/record.js';
import { randomToken } from '../support/secrets.js';
import { sha256Hex } from '../support/sha256.js';
import { confirmationEmail } from './confirmation-email-message.js';
import { admitMail } from './mail-cap.js';

/**
 * The `email_confirmation` effect a save of reviewers records for a new address: one message
 * with a link that confirms it for that tenant. The token is made now and only its hash is
 * kept, replacing any earlier one, so the newest link is the one that works. A failed send is
 * retried on the webhook schedule, each attempt with a new token.
 */
export async function sendEmailConfirmation(deps: NotificationDeps, effect: DueEffect<'email_confirmation'>): Promise<void> {
  const { db } = deps.database;
  const { email } = effect.payload;
  if (!(await isAttemptDue(db, effect))) return;

  const awaiting = and(
    eq(emailConfirmations.tenantId, effect.tenantId),
    eq(emailConfirmations.email, email),
    isNull(emailConfirmations.confirmedAt),
  );
  const [pending] = await db
    .select({ organizationName: tenants.name })
    .from(emailConfirmations)
    .innerJoin(tenants, eq(tenants.id, emailConfirmations.tenantId))
    .where(awaiting);
  // Confirmed meanwhile (an earlier link), or the tenant is gone.
  if (!pending) return completeEffect(db, effect.id);

  if (!(await admitMail(deps, effect.tenantId))) {
    // Not sent, so not counted as sent: the tenant's next save may ask again at once.
    await db.transaction(async (tx) => {
      await tx.update(emailConfirmations).set({ sentAt: null }).where(awaiting);
      await completeEffect(tx, effect.id);
    });
    return;
  }

  const token = randomToken();
  await db
    .update(emailConfirmations)
    .set({ tokenHash: sha256Hex(token) })
    .where(awaiting);
  const message = confirmationEmail({ organizationName: pending.organizationName, publicUrl: deps.publicUrl, token });
  const sent = await deps.mailer.send({ to: email, ...message });
  if (sent.ok) return completeEffect(db, effect.id);

  const { error } = sent;
  const next = await recordFailedAttempt(db, effect, { error, retryDelaysMs: deps.webhooks.retryDelaysMs, now: deps.clock.now() });
  if (next.status === 'failed')
    deps.mailer.reportUndelivered({ kind: 'confirmation', tenantId: effect.tenantId, attempts: next.attempts, error });
}
