/** One e-mail: the same content as plain text and as HTML, sent once to every address in `to`. */
export interface MailMessage {
  to: readonly string[];
  subject: string;
  text: string;
  html: string;
}

/** A message the domain stopped trying to send, for the operators' log. */
export interface UndeliveredMail {
  tenantId: string;
  approvalId: string;
  attempts: number;
  error: string;
}

/**
 * Sends e-mail. The runtime chooses the implementation: SMTP when `SMTP_URL` is set,
 * otherwise one that sends nothing and says once that e-mail is not configured.
 */
export interface Mailer {
  /**
   * Hands one message to the mail server; throws when the server does not take it. The
   * error's message says why (a refusal code, a timeout) and never quotes credentials.
   */
  send(message: MailMessage): Promise<void>;
  /** Logs that a message was given up after its last attempt: nobody else will notice. */
  reportUndelivered(mail: UndeliveredMail): void;
}
