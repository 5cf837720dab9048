import type { CoreDeps } from '../caches/caches.js';
import type { WebhookDeps, WebhookSettings } from '../webhooks/deps.js';
import type { ChatPort } from './slack-api.js';

export interface ChatDeps extends CoreDeps, Pick<WebhookDeps, 'secrets' | 'webhookTargets'> {
  /** Slack's Web API for cards and callbacks, and where chat failures are reported. */
  readonly chat: ChatPort;
  /** The base URL people open, without a trailing slash: links in cards. */
  readonly publicUrl: string;
  /** An incoming webhook is sent like a webhook, and cards are retried on the webhook schedule. */
  readonly webhooks: Pick<WebhookSettings, 'transport' | 'timeoutMs' | 'retryDelaysMs'>;
}
