import { transactionInvalidating } from '../caches/invalidation.js';
import { and, eq, sql } from 'drizzle-orm';
import { chatIntegrations } from '@agov/db';
import type { Principal } from '../access/access.js';
import type { ChatDeps } from './deps.js';
import { AppError } from '../support/errors.js';
import { CHAT_SECRET_FIELDS, chatSettingPlace } from '../secrets-at-rest/places.js';
import type { SecretBox } from '../secrets-at-rest/secret-box.js';
import { assertWebhookTarget } from '../webhooks/targets.js';

export const CHAT_MODES = chatIntegrations.mode.enumValues;
export type ChatMode = (typeof CHAT_MODES)[number];

/** Each mode's settings; the first ones listed are secrets, never returned once saved and stored sealed. */
const MODE_FIELDS = {
  incoming_webhook: ['webhook_url'],
  bot: ['app_secret', 'bot_token', 'app_id', 'team_id', 'channel_id'],
} as const satisfies Record<ChatMode, readonly string[]>;

/** Each mode's settings that may be left out (never secrets): a PUT without one stores none. */
const OPTIONAL_MODE_FIELDS = {
  incoming_webhook: [],
  // An incoming webhook posts to the one channel it was made for, so only a bot can have an
  // escalation channel; in incoming-webhook mode an escalation goes to that same webhook.
  bot: ['escalation_channel'],
} as const satisfies Record<ChatMode, readonly string[]>;

export type ChatSettingField = (typeof MODE_FIELDS)[ChatMode][number] | (typeof OPTIONAL_MODE_FIELDS)[ChatMode][number];

export interface IncomingWebhookSettings {
  webhook_url: string;
}
export interface BotSettings {
  app_id: string;
  /** Slack's signing secret: the key of the callback's signature. */
  app_secret: string;
  bot_token: string;
  team_id: string;
  channel_id: string;
  /** Where a request still pending at its `escalate_at` is posted again; none: escalations are not posted. */
  escalation_channel?: string;
}

/** A tenant's stored integration, secrets included: for the service's own use only. */
export type ChatIntegration = { tenantId: string; enabled: boolean; updatedAt: Date } & (
  | { mode: 'incoming_webhook'; settings: IncomingWebhookSettings }
  | { mode: 'bot'; settings: BotSettings }
);

/** A bot-mode integration, the kind whose signing secret admits callbacks. */
export type BotIntegration = Extract<ChatIntegration, { mode: 'bot' }>;

/** A PUT body: the mode, the switch, and that mode's settings (stored secrets may be left out). */
export type ChatSettingsInput = { mode: ChatMode; enabled: boolean } & Partial<Record<ChatSettingField, string>>;

/** The tenant's integration, its secrets opened. */
export async function loadChatIntegration(deps: Pick<ChatDeps, 'database' | 'secrets'>, tenantId: string): Promise<ChatIntegration | null> {
  const [row] = await deps.database.db.select().from(chatIntegrations).where(eq(chatIntegrations.tenantId, tenantId));
  return row ? integrationOf({ ...row, settings: openChatSettings(deps.secrets, tenantId, row.settings) }) : null;
}

/** The column holds exactly its mode's settings: `putChatSettings` writes them (the rotation only re-seals). */
const integrationOf = (row: typeof chatIntegrations.$inferSelect) => row as unknown as ChatIntegration;

/**
 * The enabled bot integrations of one Slack workspace, and of one app when `appId` is given:
 * the only ones whose signing secret may have signed a callback naming them. The mode and
 * enabled tests are written as the partial index `chat_integrations_bot_team` states them (not
 * as parameters), so the planner can prove the index applies and never reads every integration.
 */
export async function botIntegrationsOfTeam(
  deps: Pick<ChatDeps, 'database' | 'secrets'>,
  teamId: string,
  appId: string | undefined,
): Promise<BotIntegration[]> {
  const rows = await deps.database.db
    .select()
    .from(chatIntegrations)
    .where(
      and(
        sql`${chatIntegrations.mode} = 'bot' and ${chatIntegrations.enabled}`,
        sql`(${chatIntegrations.settings} ->> 'team_id') = ${teamId}`,
        appId === undefined ? undefined : sql`(${chatIntegrations.settings} ->> 'app_id') = ${appId}`,
      ),
    );
  return rows.map((row) =>
    integrationOf({ ...row, settings: openChatSettings(deps.secrets, row.tenantId, row.settings) }),
  ) as BotIntegration[];
}

/** Stored settings as the service uses them: the secrets among them opened, the rest as they are. */
export function openChatSettings(secrets: SecretBox, tenantId: string, stored: Record<string, string>): Record<string, string> {
  return mapSecrets(stored, (value, field) => secrets.open(value, chatSettingPlace(tenantId, field)));
}

function mapSecrets(settings: Record<string, string>, map: (value: string, field: string) => string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(settings).map(([field, value]) => [field, CHAT_SECRET_FIELDS.has(field) ? map(value, field) : value]),
  );
}

export async function getChatSettings(deps: ChatDeps, principal: Principal): Promise<ChatIntegration | null> {
  return loadChatIntegration(deps, principal.tenantId);
}

/**
 * Replaces the tenant's chat settings. A secret may be left out to keep the stored one, but
 * only while the mode stays the same; settings of the other mode are refused, not ignored.
 * An incoming-webhook URL must pass the webhook target rules, as webhook endpoints do.
 */
export async function putChatSettings(deps: ChatDeps, principal: Principal, input: ChatSettingsInput): Promise<ChatIntegration> {
  const stored = await loadChatIntegration(deps, principal.tenantId);
  const kept: Record<string, string> = stored?.mode === input.mode ? { ...stored.settings } : {};
  const settings = settingsOf(input, kept);
  if (input.mode === 'incoming_webhook' && input.webhook_url !== undefined) {
    await assertWebhookTarget(input.webhook_url, deps.webhookTargets, 'webhook_url');
  }
  const sealed = mapSecrets(settings, (value, field) => deps.secrets.seal(value, chatSettingPlace(principal.tenantId, field)));
  const now = deps.clock.now();
  const values = { mode: input.mode, enabled: input.enabled, settings: sealed, updatedAt: now };
  const [row] = await transactionInvalidating(deps, (tx, invalidate) => {
    invalidate({ kind: 'effect_audience', id: principal.tenantId });
    return tx
      .insert(chatIntegrations)
      .values({ tenantId: principal.tenantId, ...values })
      .onConflictDoUpdate({ target: chatIntegrations.tenantId, set: values })
      .returning();
  });
  return integrationOf({ ...row!, settings });
}

/** The settings to store: the given ones, and stored secrets for those left out. */
function settingsOf(input: ChatSettingsInput, kept: Record<string, string>): Record<string, string> {
  const fields: readonly string[] = MODE_FIELDS[input.mode];
  const optional: readonly string[] = OPTIONAL_MODE_FIELDS[input.mode];
  const given = input as Record<string, unknown>;
  const problems: { field: string; message: string }[] = [];
  for (const field of [...Object.values(MODE_FIELDS).flat(), ...Object.values(OPTIONAL_MODE_FIELDS).flat()]) {
    if (given[field] !== undefined && !fields.includes(field) && !optional.includes(field))
      problems.push({ field, message: `is not a setting of ${input.mode} mode` });
  }
  const settings: Record<string, string> = {};
  for (const field of fields) {
    const value = (given[field] as string | undefined) ?? (CHAT_SECRET_FIELDS.has(field) ? kept[field] : undefined);
    if (value === undefined) problems.push({ field, message: `is required in ${input.mode} mode` });
    else settings[field] = value;
  }
  for (const field of optional) if (typeof given[field] === 'string') settings[field] = given[field];
  if (problems.length > 0) {
    throw new AppError('validation_error', `Invalid chat settings: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}`, {
      fields: problems,
    });
  }
  return settings;
}
