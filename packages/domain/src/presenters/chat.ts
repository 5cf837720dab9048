import type { ChatIntegration } from '../chat/settings.js';

/** The settings as the API shows them: never a secret, only whether one is stored. */
export function presentChatSettings(integration: ChatIntegration | null) {
  if (!integration) return { mode: null, enabled: false as const };
  const updated_at = integration.updatedAt.toISOString();
  if (integration.mode === 'incoming_webhook') {
    return { mode: integration.mode, enabled: integration.enabled, has_webhook_url: true, updated_at };
  }
  const { app_id, team_id, channel_id } = integration.settings;
  return {
    mode: integration.mode,
    enabled: integration.enabled,
    app_id,
    team_id,
    channel_id,
    has_app_secret: true,
    has_bot_token: true,
    updated_at,
  };
}
