import { and, eq } from 'drizzle-orm';
import { agents, approvalRequests } from '@agov/db';
import type { Deps } from '../deps.js';
import { completeEffect, isAttemptDue, recordFailedAttempt, type DueEffect } from '../outbox.js';
import { approvalEmail } from './approval-email-message.js';
import { notificationSettingsOf } from './settings.js';

/**
 * The `approval_email` effect evaluate records for each approval: one message to all of the
 * tenant's reviewers while the request is still pending. Settings are read now, so a reviewer
 * list changed since evaluate is the one used. A failed send is retried on the webhook
 * schedule and given up, with an error log, after the last attempt. At least once: the row
 * is deleted right after the server took the message, and a crash in between sends it again.
 */
export async function sendApprovalEmail(deps: Deps, effect: DueEffect): Promise<void> {
  const { db } = deps.database;
  const { approval_id: approvalId } = effect.payload as { approval_id: string };
  // A stray duplicate of a run that already sent the message, gave up or recorded this attempt.
  if (!(await isAttemptDue(db, effect))) return;

  const [[pending], settings] = await Promise.all([
    db
      .select({ approval: approvalRequests, agentName: agents.name })
      .from(approvalRequests)
      .innerJoin(agents, and(eq(agents.id, approvalRequests.agentId), eq(agents.tenantId, approvalRequests.tenantId)))
      .where(and(eq(approvalRequests.id, approvalId), eq(approvalRequests.tenantId, effect.tenantId))),
    notificationSettingsOf(db, effect.tenantId),
  ]);
  const stillAsked = pending?.approval.status === 'pending' && pending.approval.expiresAt > deps.clock.now();
  // Decided or expired meanwhile, or e-mail switched off since: there is nobody to ask.
  if (!stillAsked || !settings.emailEnabled || settings.reviewerEmails.length === 0) return completeEffect(db, effect.id);

  const message = approvalEmail({ approval: pending.approval, agentName: pending.agentName, publicUrl: deps.publicUrl });
  const error = await failureOf(deps.mailer.send({ to: settings.reviewerEmails, ...message }));
  if (error === null) return completeEffect(db, effect.id);

  const next = await recordFailedAttempt(db, effect, { error, retryDelaysMs: deps.webhooks.retryDelaysMs, now: deps.clock.now() });
  if (next.status === 'failed') deps.mailer.reportUndelivered({ tenantId: effect.tenantId, approvalId, attempts: next.attempts, error });
}

/** Null when the send succeeded, else why it failed. */
async function failureOf(sending: Promise<void>): Promise<string | null> {
  try {
    await sending;
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
