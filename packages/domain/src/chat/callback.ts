import type { ChatDeps } from './deps.js';
import { AppError } from '../support/errors.js';
import { CARD_ACTIONS } from './cards.js';
import { decideFromCard, type CardPress, type SigningIntegration } from './card-press.js';
import { botIntegrationsOfTeam } from './settings.js';
import { isFreshTimestamp, isSignatureShaped, signatureMatches } from './signature.js';
import { isUuid } from '../support/ids.js';

/** The callback as it arrived: the signature headers and the raw bytes they sign. */
export interface ChatCallback {
  signature: string | undefined;
  timestamp: string | undefined;
  body: Buffer;
}

/** Hashed against when no integration has the named workspace, so that costs what a known one does. */
const NO_INTEGRATION_SECRET = 'no integration of this workspace';

/**
 * Handles a press on a card (Slack's `block_actions` interaction). The path is shared by every
 * tenant and anyone may add integrations, so what a request costs must not grow with their
 * number: after the cheap checks (size, timestamp, the signature's shape) the body is read for
 * the workspace (and app) it names, and only that workspace's enabled bot integrations —
 * normally one — check the signature on the raw bytes. Anything unsigned, stale, from
 * elsewhere, or naming no workspace is 403, whether or not the workspace is connected here; a
 * signed body that is not a press is 400. What the presser needs to know comes back in Slack.
 */
export async function handleChatCallback(deps: ChatDeps, { signature, timestamp, body }: ChatCallback): Promise<void> {
  if (!isFreshTimestamp(timestamp, deps.clock.now()) || !isSignatureShaped(signature)) throw refused();
  const interaction = interactionOf(body);
  if (!interaction) throw refused();
  const owners = await signersOf(deps, interaction.sender, { signature, timestamp, body });
  const payload = blockActionsOf(interaction.payload);

  const action = payload.actions[0]!;
  // Dashboard is a link: Slack reports the press, and there is nothing to do.
  if (action.action_id !== CARD_ACTIONS.approve && action.action_id !== CARD_ACTIONS.deny) return;
  if (typeof action.value !== 'string' || !isUuid(action.value)) throw invalid('actions[0].value must be an approval request id');
  const press: CardPress = {
    approvalId: action.value,
    verdict: action.action_id === CARD_ACTIONS.approve ? 'approve' : 'deny',
    user: { id: payload.user.id, username: payload.user.username ?? null },
    channel: payload.channel?.id ?? payload.container?.channel_id ?? null,
  };
  await decideFromCard(deps, owners, press);
}

/** The workspace (and app) a body says it comes from. */
interface Sender {
  teamId: string;
  appId: string | undefined;
}

interface Interaction {
  sender: Sender;
  /** The form's `payload` field, parsed; undefined when the form has none. */
  payload: unknown;
}

/**
 * Reads who the body says sent it, or null when it names no one. Slack posts a form: a card
 * press carries its JSON in `payload` (`team.id`, `api_app_id`); its other requests, such as
 * slash commands, name the workspace in the form itself (`team_id`, `api_app_id`). A payload
 * that is not JSON names no one: its signature cannot be checked against anyone's secret.
 */
function interactionOf(body: Buffer): Interaction | null {
  const form = new URLSearchParams(body.toString('utf8'));
  const json = form.get('payload');
  if (json === null) {
    const teamId = form.get('team_id');
    return teamId === null ? null : { sender: { teamId, appId: form.get('api_app_id') ?? undefined }, payload: undefined };
  }
  let payload: unknown;
  try {
    payload = JSON.parse(json);
  } catch {
    return null;
  }
  const named = payload as { team?: { id?: unknown }; api_app_id?: unknown } | null;
  const teamId = named?.team?.id;
  const appId = named?.api_app_id;
  if (typeof teamId !== 'string' || (appId !== undefined && typeof appId !== 'string')) return null;
  return { sender: { teamId, appId }, payload };
}

/** The named workspace's integrations whose secret signed this request, or 403. */
async function signersOf(
  deps: ChatDeps,
  { teamId, appId }: Sender,
  { signature, timestamp, body }: { signature: string; timestamp: string; body: Buffer },
): Promise<SigningIntegration[]> {
  const candidates = await botIntegrationsOfTeam(deps, teamId, appId);
  // The time of the answer must not tell whether the workspace is connected here.
  if (candidates.length === 0) signatureMatches(NO_INTEGRATION_SECRET, timestamp, body, signature);
  const signers = candidates.filter(({ settings }) => signatureMatches(settings.app_secret, timestamp, body, signature));
  if (signers.length === 0) throw refused();
  return signers;
}

interface BlockActions {
  type: 'block_actions';
  user: { id: string; username?: string };
  channel?: { id: string };
  container?: { channel_id?: string };
  actions: { action_id: string; value?: unknown }[];
}

/** A signed body's payload, checked for the fields used; its team was checked when it was read. */
function blockActionsOf(payload: unknown): BlockActions {
  if (payload === undefined) throw invalid('the body has no payload field');
  const candidate = payload as Partial<BlockActions>;
  if (candidate.type !== 'block_actions') throw invalid('payload.type must be block_actions');
  if (typeof candidate.user?.id !== 'string') throw invalid('payload.user.id is missing');
  if (!Array.isArray(candidate.actions) || typeof candidate.actions[0]?.action_id !== 'string') {
    throw invalid('payload.actions must hold the pressed action');
  }
  return candidate as BlockActions;
}

const refused = () => new AppError('forbidden', 'Chat callback signature check failed');
const invalid = (message: string) =>
  new AppError('validation_error', `Invalid chat callback: ${message}`, { fields: [{ field: 'payload', message }] });
