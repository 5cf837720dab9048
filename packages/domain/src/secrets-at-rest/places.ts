/**
 * Where each stored secret lives: the additional data its ciphertext is bound to, so a value
 * copied to another row (or another field of its row) does not open. Rows are named by their
 * primary key, which never changes.
 */
export const webhookSecretPlace = (endpointId: string) => `webhook_endpoints.secret:${endpointId}`;

export const chatSettingPlace = (tenantId: string, field: string) => `chat_integrations.settings.${field}:${tenantId}`;

/** The chat settings that are secrets: stored sealed, never returned once saved. */
export const CHAT_SECRET_FIELDS: ReadonlySet<string> = new Set(['webhook_url', 'app_secret', 'bot_token']);

/** A stored answer to an idempotency key, which may carry a secret shown once (a new API key, a webhook's signing secret). */
export const idempotentAnswerPlace = (tenantId: string, key: string) => `idempotency_keys.body:${tenantId}:${key}`;

/** A tenant's private key for signing execution grants (see grants/). */
export const grantKeyPlace = (kid: string) => `grant_signing_keys.private_key:${kid}`;
