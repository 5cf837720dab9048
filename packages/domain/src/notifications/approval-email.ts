import { and, eq, sql } from 'drizzle-orm';
import { agents, approvalRequests, outbox } from '@agov/db';
import type { Deps } from '../deps.js';
import { completeEffect, type DueEffect } from '../outbox.js';
import { afterAttempt } from '../webhooks/retry.js';
import { approvalEmail } from './approval-email-message.js';
import { notificationSettingsOf } from './settings.js';

/**
 * The effect's payload. Failed sends are counted here rather than in the row's `attempts`
 * column, which counts claims: a claim handed back while the queue is unreachable counts
 * there too, and would use up the retries of an e-mail never tried.
 */
interface ApprovalEmailPayload {
  approval_id: string;
  failed_attempts?: number;
}

const failedAttemptsOf = (payload: Record<string, unknown>) => (payload as unknown as ApprovalEmailPayload).failed_attempts ?? 0;

/**
 * The `approval_email` effect evaluate records for each approval: one message to all of the
 * tenant's reviewers while the request is still pending. Settings are read now, so a reviewer
 * list changed since evaluate is the one used. A failed send is retried on the webhook
 * schedule and given up, with an error log, after the last attempt. At least once: the row
 * is deleted right after the server took the message, and a crash in between sends it again.
 */
export async function sendApprovalEmail(deps: Deps, effect: DueEffect): Promise<void> {
  const { db } = deps.database;
  const approvalId = (effect.payload as unknown as ApprovalEmailPayload).approval_id;
  const failedBefore = failedAttemptsOf(effect.payload);

  // A stray duplicate of a run that already sent the message, gave up or recorded this attempt.
  const [row] = await db.select({ payload: outbox.payload }).from(outbox).where(eq(outbox.id, effect.id));
  if (!row || failedAttemptsOf(row.payload) !== failedBefore) return;

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

  const next = afterAttempt(failedBefore, false, deps.webhooks.retryDelaysMs, deps.clock.now());
  if (next.nextRetryAt === null) {
    await completeEffect(db, effect.id);
    deps.mailer.reportUndelivered({ tenantId: effect.tenantId, approvalId, attempts: next.attempts, error });
    return;
  }
  // Only the run that read this count records the failure; a concurrent duplicate changes nothing.
  await db
    .update(outbox)
    .set({ payload: { approval_id: approvalId, failed_attempts: next.attempts }, availableAt: next.nextRetryAt, lastError: error })
    .where(and(eq(outbox.id, effect.id), sql`coalesce((${outbox.payload}->>'failed_attempts')::int, 0) = ${failedBefore}`));
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
