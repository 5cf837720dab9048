import type { Plan } from '../caches/tenant-plans.js';
import type { SendResult } from '../support/send-result.js';

/**
 * One e-mail to one recipient: the same content as plain text and as HTML. One address per
 * message, so that no recipient ever sees another's.
 */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Mail the domain stopped trying to send, for the operators' log. Never names an address. */
export type UndeliveredMail =
  | { kind: 'approval' | 'escalation'; tenantId: string; approvalId: string; recipients: number; attempts: number; error: string }
  | { kind: 'confirmation'; tenantId: string; attempts: number; error: string };

/** A tenant's mail reached its plan's hourly cap: what it is over, never to whom. */
export interface CappedMail {
  tenantId: string;
  plan: Plan;
  perHour: number;
}

/**
 * Sends e-mail. The runtime chooses the implementation: SMTP when `SMTP_URL` is set,
 * otherwise one that sends nothing and says once that e-mail is not configured.
 */
export interface Mailer {
  /**
   * Hands one message to the mail server. A failure says why the server did not take it (a
   * refusal code, a timeout) and never quotes credentials.
   */
  send(message: MailMessage): Promise<SendResult>;
  /** Logs that mail was given up after its last attempt: nobody else will notice. */
  reportUndelivered(mail: UndeliveredMail): void;
  /** Logs that a tenant's mail is over its hourly cap; the domain calls it once per tenant per hour. */
  reportCapped(capped: CappedMail): void;
}
