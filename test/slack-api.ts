import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from './receiver.js';

/** One Web API call as Slack would receive it: the method, the bearer token and the arguments. */
export interface SlackCall {
  method: string;
  token: string | null;
  /** Form fields; the JSON ones (blocks, attachments) parsed. */
  args: Record<string, unknown>;
}

/** One message posted to the incoming webhook. */
export interface IncomingPost {
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** How a call fails: Slack's `{ok: false, error}` with HTTP 200, or a bare HTTP status. */
export type SlackFailure = { error: string } | { status: number };

export interface FakeSlack {
  /** What `SLACK_API_URL` is set to. */
  apiUrl: string;
  /** An incoming-webhook URL served by the same server. */
  incomingWebhookUrl: string;
  calls: SlackCall[];
  incoming: IncomingPost[];
  callsTo(method: string): SlackCall[];
  /** Resolves once `count` calls of `method` have arrived. */
  waitFor(method: string, count?: number, timeoutMs?: number): Promise<SlackCall[]>;
  /** A workspace member for `users.info`; a null e-mail is one the bot may not read. */
  addUser(id: string, email: string | null): void;
  /** The next `times` calls of `method` (`incoming` for the webhook) fail this way. */
  failNext(method: string, failure: SlackFailure, times?: number): void;
  close(): Promise<void>;
}

/**
 * A real local HTTP server standing in for Slack: the Web API at `/api/<method>` (form-encoded
 * requests, JSON answers shaped like Slack's) and an incoming webhook at `/services/…`.
 */
export async function startFakeSlack(): Promise<FakeSlack> {
  const calls: SlackCall[] = [];
  const incoming: IncomingPost[] = [];
  const users = new Map<string, string | null>();
  const failures = new Map<string, SlackFailure[]>();
  let posted = 0;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      const answer = (status: number, body: unknown) =>
        res
          .writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json' })
          .end(typeof body === 'string' ? body : JSON.stringify(body));
      const method = path.startsWith('/api/') ? path.slice('/api/'.length) : 'incoming';
      const failure = failures.get(method)?.shift();

      if (method === 'incoming') {
        incoming.push({ headers: req.headers, body: JSON.parse(text) });
        if (failure) return answer('status' in failure ? failure.status : 400, 'error' in failure ? failure.error : 'error');
        return answer(200, 'ok');
      }
      const args = Object.fromEntries([...new URLSearchParams(text)].map(([key, value]) => [key, parsed(value)]));
      const bearer = req.headers.authorization?.match(/^Bearer (.+)$/)?.[1] ?? null;
      calls.push({ method, token: bearer, args });
      if (failure)
        return 'status' in failure ? answer(failure.status, 'upstream trouble') : answer(200, { ok: false, error: failure.error });
      answer(200, respond(method, args));
    });
  });

  function respond(method: string, args: Record<string, unknown>): unknown {
    switch (method) {
      case 'chat.postMessage':
        posted += 1;
        return { ok: true, channel: args.channel, ts: `1700000000.${String(posted).padStart(6, '0')}`, message: { text: args.text } };
      case 'chat.update':
        return { ok: true, channel: args.channel, ts: args.ts, text: args.text };
      case 'chat.postEphemeral':
        return { ok: true, message_ts: '1700000001.000001' };
      case 'users.info': {
        const id = String(args.user);
        if (!users.has(id)) return { ok: false, error: 'user_not_found' };
        const email = users.get(id);
        return { ok: true, user: { id, name: id.toLowerCase(), profile: email === null ? {} : { email } } };
      }
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const callsTo = (method: string) => calls.filter((call) => call.method === method);
  return {
    apiUrl: `${base}/api`,
    incomingWebhookUrl: `${base}/services/T0001/B0001/incomingsecret`,
    calls,
    incoming,
    callsTo,
    waitFor: (method, count = 1, timeoutMs = 15_000) =>
      eventually(async () => callsTo(method).length >= count && callsTo(method), timeoutMs, `${count} × ${method}`),
    addUser: (id, email) => users.set(id, email),
    failNext: (method, failure, times = 1) => failures.set(method, [...(failures.get(method) ?? []), ...Array(times).fill(failure)]),
    close: () => new Promise<void>((resolve) => server.close(() => resolve()).closeAllConnections()),
  };
}

function parsed(value: string): unknown {
  if (!/^[[{]/.test(value)) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** A press on a card button, as Slack's `block_actions` payload carries it (the fields we read, and some we do not). */
export function blockActions(press: {
  teamId: string;
  appId?: string;
  userId: string;
  /** The presser's Slack username; by default the id in lower case. */
  username?: string;
  action: string;
  approvalId: string;
  channel?: string;
}) {
  return {
    type: 'block_actions',
    api_app_id: press.appId ?? 'A0TESTAPP',
    team: { id: press.teamId, domain: 'acme' },
    user: { id: press.userId, username: press.username ?? press.userId.toLowerCase(), team_id: press.teamId },
    channel: { id: press.channel ?? 'C0APPROVALS', name: 'approvals' },
    container: { type: 'message', channel_id: press.channel ?? 'C0APPROVALS', message_ts: '1700000000.000001' },
    response_url: 'https://hooks.slack.com/actions/T0/1/xyz',
    trigger_id: '1.2.3',
    actions: [
      { type: 'button', block_id: 'approval_actions', action_id: press.action, value: press.approvalId, action_ts: '1700000002.1' },
    ],
  };
}

/** The form body Slack posts to the Request URL, signed with the app's signing secret at `timestamp` (Unix seconds). */
export function signedInteraction(secret: string, payload: unknown, timestamp = Math.floor(Date.now() / 1000)) {
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  return { body, headers: slackHeaders(secret, body, timestamp) };
}

/** Slack's signing scheme: `v0=` + hex HMAC-SHA256(secret, `v0:{timestamp}:{body}`). */
export function slackHeaders(secret: string, body: string, timestamp: number) {
  const signature = `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  return {
    'content-type': 'application/x-www-form-urlencoded',
    'x-slack-request-timestamp': String(timestamp),
    'x-slack-signature': signature,
  };
}
