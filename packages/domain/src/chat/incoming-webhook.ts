import type { ChatDeps } from './deps.js';
import { AppError } from '../support/errors.js';
import type { SendResult } from '../support/send-result.js';
import { assertWebhookTarget } from '../webhooks/targets.js';
import type { SlackMessage } from './slack-api.js';

/**
 * Posts a message to a Slack incoming webhook through the webhook transport, so the same
 * target rules hold (checked again now, and on the address actually dialled). The URL is a
 * secret and never appears in a failure's reason.
 */
export async function postToIncomingWebhook(deps: ChatDeps, url: string, message: SlackMessage): Promise<SendResult> {
  try {
    await assertWebhookTarget(url, deps.webhookTargets, 'webhook_url');
  } catch (error) {
    if (error instanceof AppError && error.code === 'validation_error') return { ok: false, error: error.message };
    throw error;
  }
  const result = await deps.webhooks.transport.post({
    url,
    body: JSON.stringify(message),
    headers: { 'content-type': 'application/json' },
    timeoutMs: deps.webhooks.timeoutMs,
  });
  return result.ok ? { ok: true } : { ok: false, error: `incoming webhook: ${result.error}` };
}
