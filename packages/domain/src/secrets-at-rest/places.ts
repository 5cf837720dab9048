/**
 * Where each stored secret lives: the additional data its ciphertext is bound to, so a value
 * copied to another row (or another field of its row) does not open. Rows are named by their
 * primary key, which never changes.
 */
export const webhookSecretPlace = (endpointId: string) => `webhook_endpoints.secret:${endpointId}`;

export const chatSettingPlace = (tenantId: string, field: string) => `chat_integrations.settings.${field}:${tenantId}`;
