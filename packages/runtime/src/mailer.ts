import type { Config } from '@agov/config';
import type { CappedMail, Mailer, MailMessage, SendResult, UndeliveredMail } from '@agov/domain';
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';

/**
 * Nodemailer waits minutes by default. An attempt must fail well within the outbox lease
 * (60 s by default), or the relay would hand the e-mail out again while it is still being sent.
 */
const TIMEOUTS_MS = { connectionTimeout: 10_000, greetingTimeout: 10_000, dnsTimeout: 10_000, socketTimeout: 20_000 };

/**
 * The one e-mail sender: SMTP at `SMTP_URL` (`smtps://` for TLS from the start; a `smtp://`
 * server offering STARTTLS is upgraded), from `SMTP_FROM`. Without `SMTP_URL` it sends
 * nothing and says so once, when there is first something to send.
 */
export function createMailer(config: Pick<Config, 'smtpUrl' | 'smtpFrom'>, logger: Logger): Mailer {
  const reports = {
    reportUndelivered: (mail: UndeliveredMail) => logger.error(mail, `${mail.kind} e-mail given up after its last attempt`),
    reportCapped: (capped: CappedMail) =>
      logger.warn(capped, "a tenant's e-mail reached its plan's hourly cap: messages over it are not sent"),
  };
  if (!config.smtpUrl) {
    let told = false;
    return {
      async send() {
        if (!told) logger.warn('e-mail is not configured (SMTP_URL unset)');
        told = true;
        return { ok: true };
      },
      ...reports,
    };
  }

  const transport = nodemailer.createTransport({ url: config.smtpUrl, ...TIMEOUTS_MS });
  return {
    async send(message: MailMessage): Promise<SendResult> {
      try {
        await transport.sendMail({ ...message, from: config.smtpFrom });
        return { ok: true };
      } catch (error) {
        return { ok: false, error: failureOf(error) };
      }
    },
    ...reports,
  };
}

/** Why a send failed, by SMTP reply code and Nodemailer's error code; never the server's own text. */
function failureOf(error: unknown): string {
  const { code, responseCode } = (error ?? {}) as { code?: unknown; responseCode?: unknown };
  const named = typeof code === 'string' ? ` (${code})` : '';
  return typeof responseCode === 'number'
    ? `the mail server answered ${responseCode}${named}`
    : `connection to the mail server failed${named}`;
}
