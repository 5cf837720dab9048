import { lookup, promises as dns } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Mode } from '@agov/config';
import {
  blockedAddressReason,
  type OutboundRequest,
  type OutboundResult,
  type SendResult,
  type WebhookTargets,
  type WebhookTransport,
} from '@agov/domain';
import { Agent, buildConnector, request, type Dispatcher } from 'undici';

/** CONTRACT: at most 64 KiB of a receiver's answer is read; the rest is dropped unread. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * Which webhook targets this deployment allows, decided from the mode here and nowhere else:
 * production only https to public unicast addresses; development also the local ones, and
 * plain http on the local host, so that a receiver on the developer's machine works.
 */
export function webhookTargets(mode: Mode): WebhookTargets {
  const development = mode === 'development';
  return { allowPrivate: development, allowLocalHttp: development, resolve: resolveHost };
}

/** Every address the name resolves to, as the socket's own lookup would find them; none when it does not resolve. */
const resolveHost = (hostname: string): Promise<string[]> =>
  dns.lookup(hostname, { all: true }).then(
    (addresses) => addresses.map(({ address }) => address),
    () => [],
  );

/**
 * The one webhook sender. Unless private targets are allowed it connects only to public
 * unicast addresses, judged on the address actually dialled, so a name that re-resolves to a
 * private address after its create-time check (DNS rebinding) is still refused.
 */
export function createWebhookTransport(targets: Pick<WebhookTargets, 'allowPrivate'>): WebhookTransport {
  const dispatcher = new Agent(targets.allowPrivate ? {} : { connect: publicOnlyConnector() });
  return { post: (outbound) => post(dispatcher, outbound) };
}

async function post(dispatcher: Dispatcher, outbound: OutboundRequest): Promise<OutboundResult> {
  const started = performance.now();
  const signal = AbortSignal.timeout(outbound.timeoutMs);
  const timed = (result: SendResult<{ status: number }>): OutboundResult => ({
    ...result,
    durationMs: Math.round(performance.now() - started),
  });
  try {
    // undici's `request` follows no redirects unless a redirect interceptor is added.
    const response = await request(outbound.url, { dispatcher, method: 'POST', headers: outbound.headers, body: outbound.body, signal });
    // Read only so the connection can be reused, never kept; past the limit (or a longer
    // announced length) the connection is closed instead. The time limit covers the reading.
    await response.body.dump({ limit: MAX_RESPONSE_BYTES, signal });
    const status = response.statusCode;
    if (status >= 200 && status < 300) return timed({ ok: true, status });
    if (status >= 300 && status < 400) return timed({ ok: false, status, error: `redirect (HTTP ${status}) not followed` });
    return timed({ ok: false, status, error: `HTTP ${status}` });
  } catch (error) {
    if (signal.aborted) return timed({ ok: false, error: `timed out after ${outbound.timeoutMs} ms`, timedOut: true });
    return timed({ ok: false, error: failureOf(error) });
  }
}

/** An address refused where private targets are not allowed, raised before any packet is sent to it. */
class BlockedAddressError extends Error {
  constructor(address: string, reason: string) {
    super(`address ${address} is not allowed (${reason})`);
  }
}

function failureOf(error: unknown): string {
  if (error instanceof BlockedAddressError) return error.message;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? `connection failed (${code})` : 'connection failed';
}

/**
 * node:net skips `lookup` when the host is an IP literal, so literals are judged here and
 * names in `publicOnlyLookup`, which sees every address the socket may then dial.
 */
function publicOnlyConnector(): buildConnector.connector {
  const connect = buildConnector({ lookup: publicOnlyLookup });
  return (options, callback) => {
    const reason = isIP(options.hostname) ? blockedAddressReason(options.hostname) : null;
    if (reason !== null) return callback(new BlockedAddressError(options.hostname, reason), null);
    connect(options, callback);
  };
}

const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, options, (error, addresses, family) => {
    if (error) return callback(error, addresses, family);
    // With `all` (used by node's happy-eyeballs connect) this is a list, else one address.
    const candidates = typeof addresses === 'string' ? [addresses] : addresses.map((entry) => entry.address);
    for (const address of candidates) {
      const reason = blockedAddressReason(address);
      if (reason !== null) return callback(new BlockedAddressError(address, reason), '', 0);
    }
    callback(null, addresses, family);
  });
};
