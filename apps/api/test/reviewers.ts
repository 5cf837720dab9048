/**
 * Reviewer addresses as their owners see them, through a local SMTP server: the confirmation
 * mail a save sends, its link's token, and the approval mail that follows confirmation.
 */
import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { outbox } from '@agov/db';
import { eventually } from '../../../test/receiver.js';
import type { ReceivedMail, SmtpReceiver } from '../../../test/smtp-receiver.js';
import type { TestApp } from './harness.js';

export const CONFIRMATION_SUBJECT = 'Confirm your address for approval requests';

const isConfirmation = (mail: ReceivedMail) => mail.subject === CONFIRMATION_SUBJECT;

/** The confirmation mails `address` got, in order of arrival. */
export const confirmationsTo = (smtp: SmtpReceiver, address: string) => smtp.to(address).filter(isConfirmation);

/** Everything else `address` got: approval mail. */
export const approvalMailsTo = (smtp: SmtpReceiver, address: string) => smtp.to(address).filter((mail) => !isConfirmation(mail));

/** Resolves with the first `count` confirmation mails to `address` once they have arrived. */
export const waitForConfirmations = (smtp: SmtpReceiver, address: string, count = 1) =>
  eventually(
    async () => confirmationsTo(smtp, address).length >= count && confirmationsTo(smtp, address).slice(0, count),
    15_000,
    `${count} confirmation mail(s) to ${address}`,
  );

/** Resolves with the first `count` approval mails to `address` once they have arrived. */
export const waitForApprovalMails = (smtp: SmtpReceiver, address: string, count = 1) =>
  eventually(
    async () => approvalMailsTo(smtp, address).length >= count && approvalMailsTo(smtp, address).slice(0, count),
    15_000,
    `${count} approval mail(s) to ${address}`,
  );

/** The token in a confirmation mail's link. */
export function tokenOf(mail: ReceivedMail): string {
  const token = /\/confirm-email\?token=([A-Za-z0-9_-]+)\n/.exec(mail.text)?.[1];
  expect(token, mail.text).toBeDefined();
  return token!;
}

/** What the dashboard's confirm page sends when its button is pressed: no credentials. */
export const confirmWith = (app: FastifyInstance, payload: unknown) =>
  app.inject({ method: 'POST', url: '/api/v1/email-confirmations', payload: payload as object });

/** Confirms each address with the first link mailed to it, as its owner would. */
export async function confirmAddresses(app: FastifyInstance, smtp: SmtpReceiver, addresses: readonly string[]): Promise<void> {
  for (const address of addresses) {
    const [mail] = await waitForConfirmations(smtp, address);
    const confirmed = await confirmWith(app, { token: tokenOf(mail!) });
    expect(confirmed.statusCode, confirmed.body).toBe(204);
  }
}

/** Once the tenant's effects of `kind` are done: sent, given up or dropped. */
export const effectsSettled = (t: TestApp, tenantId: string, kind: 'approval_email' | 'email_confirmation') =>
  eventually(
    async () =>
      (
        await t.runtime.database.db
          .select({ id: outbox.id })
          .from(outbox)
          .where(and(eq(outbox.tenantId, tenantId), eq(outbox.kind, kind)))
      ).length === 0,
    15_000,
    `${kind} effects settled`,
  );
