/**
 * What the settings view reads of a stored integration (chat/settings.ts loads it): the
 * bot's secrets are not among them, so they cannot reach a response.
 */
type ChatSettingsInput = { enabled: boolean; updatedAt: Date } & (
  | { mode: 'incoming_webhook' }
  | { mode: 'bot'; settings: { app_id: string; team_id: string; channel_id: string; escalation_channel?: string } }
);

/** The settings as the API shows them: never a secret, only whether one is stored. */
export function presentChatSettings(integration: ChatSettingsInput | null) {
  if (!integration) return { mode: null, enabled: false as const };
  const updated_at = integration.updatedAt.toISOString();
  if (integration.mode === 'incoming_webhook') {
    return { mode: integration.mode, enabled: integration.enabled, has_webhook_url: true, updated_at };
  }
  const { app_id, team_id, channel_id, escalation_channel = null } = integration.settings;
  return {
    mode: integration.mode,
    enabled: integration.enabled,
    app_id,
    team_id,
    channel_id,
    escalation_channel,
    has_app_secret: true,
    has_bot_token: true,
    updated_at,
  };
}

/** What the Test action came to (chat/test-message.ts sends it); `error` is null exactly when it was delivered. */
export const presentChatTestResult = (result: { delivered: boolean; error: string | null }) => ({
  delivered: result.delivered,
  error: result.error,
});
