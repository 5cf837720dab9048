import type { Principal } from '../access/access.js';
import type { ChatDeps } from './deps.js';
import { AppError } from '../support/errors.js';
import { testCard } from './cards.js';
import { postToIncomingWebhook } from './incoming-webhook.js';
import { loadChatIntegration } from './settings.js';

/** What the Test action came to; `error` is null exactly when Slack took the message. */
export interface ChatTestResult {
  delivered: boolean;
  error: string | null;
}

/**
 * Sends the test card now, in the configured mode, and reports what happened; never retried.
 * It is sent even while the integration is disabled: an admin asked for it explicitly.
 */
export async function sendTestChatMessage(deps: ChatDeps, principal: Principal): Promise<ChatTestResult> {
  const integration = await loadChatIntegration(deps, principal.tenantId);
  if (!integration) throw new AppError('conflict', 'Chat integration is not configured: save its settings first');
  const message = testCard(deps.publicUrl, deps.clock.now());
  const sent =
    integration.mode === 'incoming_webhook'
      ? await postToIncomingWebhook(deps, integration.settings.webhook_url, message)
      : await deps.chat.slack.postMessage(integration.settings.bot_token, integration.settings.channel_id, message);
  return sent.ok ? { delivered: true, error: null } : { delivered: false, error: sent.error };
}
