import type { Principal } from '../access/access.js';
import type { ChatDeps } from './deps.js';
import { AppError } from '../support/errors.js';
import { testCard } from './cards.js';
import { postToIncomingWebhook } from './incoming-webhook.js';
import { loadChatIntegration } from './settings.js';
import { SlackCallError } from './slack-api.js';

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
  if (integration.mode === 'incoming_webhook') {
    const error = await postToIncomingWebhook(deps, integration.settings.webhook_url, message);
    return { delivered: error === null, error };
  }
  try {
    await deps.chat.slack.postMessage(integration.settings.bot_token, integration.settings.channel_id, message);
    return { delivered: true, error: null };
  } catch (error) {
    if (error instanceof SlackCallError) return { delivered: false, error: error.message };
    throw error;
  }
}
