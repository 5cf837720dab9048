import { and, eq } from 'drizzle-orm';
import { chatIntegrations } from '@agov/db';
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import { CARD_ACTIONS } from './cards.js';
import { decideFromCard, type CardPress, type SigningIntegration } from './card-press.js';
import { openChatSettings } from './settings.js';
import { isFreshTimestamp, isSignatureShaped, signatureMatches } from './signature.js';

/** The callback as it arrived: the signature headers and the raw bytes they sign. */
export interface ChatCallback {
  signature: string | undefined;
  timestamp: string | undefined;
  body: Buffer;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Handles a press on a card (Slack's `block_actions` interaction). The path is shared by every
 * tenant, so the signature also says whose it is: it is checked on the raw bytes, before
 * anything is parsed, against the signing secret of each enabled bot integration; the
 * payload's team (and app) must then be the one stored with that secret. Anything unsigned,
 * stale or from elsewhere is 403. What the presser needs to know comes back to them in Slack.
 */
export async function handleChatCallback(deps: Deps, callback: ChatCallback): Promise<void> {
  const signers = await signersOf(deps, callback);
  const payload = parsePayload(callback.body);
  const owners = signers.filter(
    ({ settings }) => settings.team_id === payload.team.id && (payload.api_app_id === undefined || settings.app_id === payload.api_app_id),
  );
  if (owners.length === 0) throw refused();

  const action = payload.actions[0]!;
  // Dashboard is a link: Slack reports the press, and there is nothing to do.
  if (action.action_id !== CARD_ACTIONS.approve && action.action_id !== CARD_ACTIONS.deny) return;
  if (typeof action.value !== 'string' || !UUID.test(action.value)) throw invalid('actions[0].value must be an approval request id');
  const press: CardPress = {
    approvalId: action.value,
    verdict: action.action_id === CARD_ACTIONS.approve ? 'approve' : 'deny',
    user: { id: payload.user.id, username: payload.user.username ?? null },
    channel: payload.channel?.id ?? payload.container?.channel_id ?? null,
  };
  await decideFromCard(deps, owners, press);
}

/** The integrations whose secret signed this request, or 403. */
async function signersOf(deps: Deps, { signature, timestamp, body }: ChatCallback): Promise<SigningIntegration[]> {
  if (!isFreshTimestamp(timestamp, deps.clock.now()) || !isSignatureShaped(signature)) throw refused();
  const integrations = await deps.database.db
    .select({ tenantId: chatIntegrations.tenantId, settings: chatIntegrations.settings })
    .from(chatIntegrations)
    .where(and(eq(chatIntegrations.mode, 'bot'), eq(chatIntegrations.enabled, true)));
  const opened = integrations.map(({ tenantId, settings }) => ({ tenantId, settings: openChatSettings(deps.secrets, tenantId, settings) }));
  // Bot-mode rows hold BotSettings (settings.ts writes them).
  const signers = (opened as unknown as SigningIntegration[]).filter(({ settings }) =>
    signatureMatches(settings.app_secret, timestamp, body, signature),
  );
  if (signers.length === 0) throw refused();
  return signers;
}

interface BlockActions {
  type: 'block_actions';
  api_app_id?: string;
  team: { id: string };
  user: { id: string; username?: string };
  channel?: { id: string };
  container?: { channel_id?: string };
  actions: { action_id: string; value?: unknown }[];
}

/** The interaction payload (`payload=` JSON in a form body), checked for the fields used. */
function parsePayload(body: Buffer): BlockActions {
  const json = new URLSearchParams(body.toString('utf8')).get('payload');
  if (json === null) throw invalid('the body has no payload field');
  let payload: unknown;
  try {
    payload = JSON.parse(json);
  } catch {
    throw invalid('payload is not JSON');
  }
  const candidate = payload as Partial<BlockActions> | null;
  if (candidate?.type !== 'block_actions') throw invalid('payload.type must be block_actions');
  if (typeof candidate.team?.id !== 'string') throw invalid('payload.team.id is missing');
  if (typeof candidate.user?.id !== 'string') throw invalid('payload.user.id is missing');
  if (!Array.isArray(candidate.actions) || typeof candidate.actions[0]?.action_id !== 'string') {
    throw invalid('payload.actions must hold the pressed action');
  }
  return candidate as BlockActions;
}

const refused = () => new AppError('forbidden', 'Chat callback signature check failed');
const invalid = (message: string) =>
  new AppError('validation_error', `Invalid chat callback: ${message}`, { fields: [{ field: 'payload', message }] });
