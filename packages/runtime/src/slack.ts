import type { Config } from '@agov/config';
import type { ChatPort, PostedMessage, SendFailure, SendResult, SlackApi, SlackMessage } from '@agov/domain';
import { ErrorCode, LogLevel, WebClient, type Logger as SlackLogger } from '@slack/web-api';
import type { Logger } from 'pino';

/**
 * Chat's outside world: Slack's Web API at `SLACK_API_URL` through Slack's own client, and a
 * log for what did not go through. The client never retries (the outbox does, on its
 * schedule, and a callback cannot wait) and never follows a method name to another host.
 */
export function createChat(config: Pick<Config, 'slackApiUrl' | 'webhookTimeoutMs'>, logger: Logger): ChatPort {
  const client = new WebClient(undefined, {
    slackApiUrl: `${config.slackApiUrl}/`,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: config.webhookTimeoutMs,
    allowAbsoluteUrls: false,
    logger: slackLogger(logger),
  });
  return {
    slack: slackApi(client),
    reportFailure(failure) {
      logger.warn(
        failure,
        failure.retryAt ? 'chat message not delivered; it is tried again later' : 'chat message not delivered; given up',
      );
    },
  };
}

function slackApi(client: WebClient): SlackApi {
  return {
    async postMessage(token, channel, message) {
      const sent = await call('chat.postMessage', () => client.chat.postMessage({ token, channel, ...message }));
      if (!sent.ok) return sent;
      const { channel: postedIn, ts } = sent.answer;
      if (typeof postedIn !== 'string' || typeof ts !== 'string') return failed('chat.postMessage', 'the answer has no channel and ts');
      return { ok: true, channel: postedIn, ts };
    },
    async updateMessage(token, posted: PostedMessage, message: SlackMessage) {
      const sent = await call('chat.update', () => client.chat.update({ token, channel: posted.channel, ts: posted.ts, ...message }));
      return sent.ok ? { ok: true } : sent;
    },
    async postEphemeral(token, channel, user, message) {
      const sent = await call('chat.postEphemeral', () => client.chat.postEphemeral({ token, channel, user, ...message }));
      return sent.ok ? { ok: true } : sent;
    },
    async userEmail(token, user) {
      const sent = await call('users.info', () => client.users.info({ token, user }));
      if (sent.ok) return { ok: true, email: sent.answer.user?.profile?.email ?? null };
      // Without `users:read.email` Slack leaves the e-mail out or refuses with missing_scope.
      return /missing_scope|user_not_found/.test(sent.error) ? { ok: true, email: null } : sent;
    },
  };
}

/** Runs one call; whatever goes wrong becomes a failure naming the method and Slack's reason, never the token. */
async function call<T>(method: string, send: () => Promise<T>): Promise<SendResult<{ answer: T }>> {
  try {
    return { ok: true, answer: await send() };
  } catch (error) {
    return failed(method, reasonOf(error));
  }
}

const failed = (method: string, reason: string): SendFailure => ({ ok: false, error: `slack ${method} failed: ${reason}` });

function reasonOf(error: unknown): string {
  const failure = error as { code?: string; data?: { error?: string }; statusCode?: number; retryAfter?: number; original?: Error };
  switch (failure.code) {
    case ErrorCode.PlatformError:
      return failure.data?.error ?? 'error';
    case ErrorCode.HTTPError:
      return `HTTP ${failure.statusCode}`;
    case ErrorCode.RateLimitedError:
      return `rate limited (retry after ${failure.retryAfter} s)`;
    case ErrorCode.RequestError: {
      const cause = (failure.original?.cause as { code?: string } | undefined)?.code;
      return `request failed (${cause ?? failure.original?.name ?? 'unknown'})`;
    }
    default:
      return 'unexpected error';
  }
}

/** Slack's client logs through ours, warnings and errors only: its debug lines carry request bodies. */
function slackLogger(logger: Logger): SlackLogger {
  const child = logger.child({ component: 'slack-web-api' });
  return {
    debug: () => {},
    info: () => {},
    warn: (...messages: unknown[]) => child.warn(messages.map(String).join(' ')),
    error: (...messages: unknown[]) => child.error(messages.map(String).join(' ')),
    setLevel: () => {},
    getLevel: () => LogLevel.WARN,
    setName: () => {},
  };
}
