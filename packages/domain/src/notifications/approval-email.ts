import { and, eq } from 'drizzle-orm';
import { agents, approvalRequests } from '@agov/db';
import type { NotificationDeps } from './deps.js';
import type { DueEffect } from '../outbox/effects.js';
import { completeEffect, isAttemptDue, recordFailedAttempt } from '../outbox/record.js';
import { approvalEmail } from './approval-email-message.js';
import { confirmedAmong } from './confirmations.js';
import { admitMail } from './mail-cap.js';
import { undecidedFor } from '../support/durations.js';
import { notificationSettingsOf } from './settings.js';

/**
 * The `approval_email` effect evaluate records for each approval: one message to each of the
 * tenant's confirmed reviewers while the request is still pending, each counted against the
 * tenant's hourly cap (a message over it is not sent, nor retried). Settings and confirmations
 * are read now, so the list as it stands is the one used. The messages go out together, so an
 * attempt takes as long as one send and stays within the outbox lease.
 *
 * When some sends fail, the recipients that were done are kept in the payload and the rest are
 * retried on the webhook schedule, then given up with an error log. At least once per
 * recipient: a crash between the server taking a message and the row's update sends it again.
 */
export function sendApprovalEmail(deps: NotificationDeps, effect: DueEffect<'approval_email'>): Promise<void> {
  return sendAboutApproval(deps, effect, 'approval');
}

/**
 * The `escalation_email` effect recorded when a request is escalated: the same message, marked
 * as escalated, to each confirmed escalation address, sent and retried as approval mail is.
 */
export function sendEscalationEmail(deps: NotificationDeps, effect: DueEffect<'escalation_email'>): Promise<void> {
  return sendAboutApproval(deps, effect, 'escalation');
}

async function sendAboutApproval(
  deps: NotificationDeps,
  effect: DueEffect<'approval_email' | 'escalation_email'>,
  kind: 'approval' | 'escalation',
): Promise<void> {
  const { db } = deps.database;
  const { approval_id: approvalId, recipients_done: done = [] } = effect.payload;
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
  const listed = kind === 'approval' ? settings.reviewerEmails : settings.escalationEmails;
  const recipients = (await confirmedAmong(db, effect.tenantId, listed)).filter((address) => !done.includes(address.toLowerCase()));
  // Decided or expired meanwhile, or e-mail switched off since: there is nobody to ask.
  if (!stillAsked || !settings.emailEnabled || recipients.length === 0) return completeEffect(db, effect.id);

  const message = approvalEmail({
    approval: pending.approval,
    agentName: pending.agentName,
    publicUrl: deps.publicUrl,
    escalation: kind === 'escalation' ? undecidedFor(pending.approval) : null,
  });
  const failures = await Promise.all(
    recipients.map(async (to) => {
      if (!(await admitMail(deps, effect.tenantId))) return null;
      const sent = await deps.mailer.send({ to, ...message });
      return sent.ok ? null : sent.error;
    }),
  );
  const failed = recipients.filter((_to, i) => failures[i] !== null);
  if (failed.length === 0) return completeEffect(db, effect.id);

  const error = failures.find((failure) => failure !== null)!;
  const progress = { recipients_done: [...done, ...recipients.filter((_to, i) => failures[i] === null).map((to) => to.toLowerCase())] };
  const next = await recordFailedAttempt(db, effect, {
    error,
    retryDelaysMs: deps.webhooks.retryDelaysMs,
    now: deps.clock.now(),
    progress,
  });
  if (next.status === 'failed')
    deps.mailer.reportUndelivered({
      kind,
      tenantId: effect.tenantId,
      approvalId,
      recipients: failed.length,
      attempts: next.attempts,
      error,
    });
}
