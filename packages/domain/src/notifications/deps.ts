import type { LimitsDeps } from '../limits/deps.js';
import type { WebhookSettings } from '../webhooks/deps.js';
import type { Mailer } from './mailer.js';

/** Mail is capped per plan, so notifications need the rate counters too. */
export interface NotificationDeps extends LimitsDeps {
  /** Sends mail (SMTP, or nothing when `SMTP_URL` is unset). */
  readonly mailer: Mailer;
  /** The base URL people open, without a trailing slash: links in e-mails. */
  readonly publicUrl: string;
  /** E-mails are retried on the webhook schedule. */
  readonly webhooks: Pick<WebhookSettings, 'retryDelaysMs'>;
}
