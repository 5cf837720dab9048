import type { KnownBlock, MessageAttachment } from '@slack/types';
import type { SendResult } from '../support/send-result.js';

/** A Slack message as this service writes it: fallback text, blocks, and the coloured attachment. */
export interface SlackMessage {
  /** Shown in notifications and by clients that cannot draw blocks. */
  text: string;
  blocks: KnownBlock[];
  attachments?: MessageAttachment[];
}

/** Where a posted message lives, so it can be updated in place later. */
export interface PostedMessage {
  channel: string;
  ts: string;
}

/**
 * The Slack Web API calls the service makes, each with the tenant's bot token. A failure's
 * `error` names the method and Slack's error code (`slack chat.postMessage failed:
 * channel_not_found`), and never the token.
 */
export interface SlackApi {
  postMessage(token: string, channel: string, message: SlackMessage): Promise<SendResult<PostedMessage>>;
  updateMessage(token: string, posted: PostedMessage, message: SlackMessage): Promise<SendResult>;
  postEphemeral(token: string, channel: string, user: string, message: SlackMessage): Promise<SendResult>;
  /** The user's e-mail address, or null when the bot may not read it (no `users:read.email`). */
  userEmail(token: string, user: string): Promise<SendResult<{ email: string | null }>>;
}

/** A chat send that did not go through; what the runtime logs (ids and reasons, never secrets). */
export interface ChatFailure {
  tenantId: string;
  approvalId: string | null;
  /** What was being sent: `approval_card`, `card_update`, `ephemeral`. */
  what: string;
  error: string;
  /** When it is tried again; null when it is given up. */
  retryAt: Date | null;
}

/** Chat's outside world: Slack's Web API, and where failures are reported. */
export interface ChatPort {
  readonly slack: SlackApi;
  reportFailure(failure: ChatFailure): void;
}
