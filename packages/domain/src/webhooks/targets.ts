import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { AppError } from '../support/errors.js';

/** CONTRACT: in development, plain http is accepted on "the local host" and nowhere else. */
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Readable names for ipaddr.js's special ranges. A range missing here (ipaddr.js adds
 * them over time) is still refused, as `reserved`: only `unicast` may receive webhooks.
 */
const RANGE_REASONS: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT',
  private: 'private',
  uniqueLocal: 'unique local',
  deprecatedSiteLocal: 'site-local',
  rfc6145: 'IPv4-translated IPv6',
  rfc6052: 'NAT64',
  '6to4': '6to4',
  teredo: 'Teredo',
};

/**
 * Which URLs may receive webhooks and Slack incoming-webhook posts here, and how their host
 * names resolve. The runtime decides it once, from the mode: production allows neither flag,
 * development both.
 */
export interface WebhookTargets {
  /**
   * Whether loopback, private and every other non-public address may receive. When they may,
   * no host name is resolved; when not, a name must resolve, and only to public addresses.
   */
  readonly allowPrivate: boolean;
  /** Whether plain http is accepted on the local host (CONTRACT: in development, and nowhere else). */
  readonly allowLocalHttp: boolean;
  /** Every address the host name resolves to now; none when it does not resolve. */
  resolve(hostname: string): Promise<readonly string[]>;
}

/**
 * Refuses a URL that may not receive webhooks here, with AppError `validation_error` and
 * details `{ fields: [{ field, message }] }`. Where private ranges are blocked the host is
 * resolved now, and the transport checks the address again on every send, since DNS may
 * answer differently later.
 */
export async function assertWebhookTarget(url: string, targets: WebhookTargets, field = 'url'): Promise<void> {
  const reason =
    urlRefusal(url, targets.allowLocalHttp) ?? (targets.allowPrivate ? null : await hostRefusal(new URL(url).hostname, targets));
  // The URL is never quoted: a refused one may carry credentials.
  if (reason) throw new AppError('validation_error', `${field} ${reason}`, { fields: [{ field, message: reason }] });
}

/** Why an address may not receive webhooks where private ones are blocked, or null for a public unicast one. */
export function blockedAddressReason(address: string): string | null {
  // node's isIP accepts only canonical forms; ipaddr.js alone would also read "1" or "0x7f.1".
  if (!isIP(address)) return 'not an IP address';
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    // A mapped address reaches the IPv4 host it embeds; the category is refused either way.
    const embedded = blockedAddressReason((parsed as ipaddr.IPv6).toIPv4Address().toString());
    return embedded ? `IPv4-mapped IPv6 (${embedded})` : 'IPv4-mapped IPv6';
  }
  const range = parsed.range();
  if (range === 'unicast' && isIPv4Compatible(parsed)) return 'IPv4-compatible IPv6';
  return range === 'unicast' ? null : (RANGE_REASONS[range] ?? 'reserved');
}

/**
 * `::a.b.c.d` (::/96, deprecated by RFC 4291): ipaddr.js calls it unicast, but a stack that
 * still honours it reaches the IPv4 host it embeds, loopback and private ranges included.
 * `::` and `::1` are in their own ranges.
 */
function isIPv4Compatible(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0);
}

function urlRefusal(url: string, allowLocalHttp: boolean): string | null {
  if (!URL.canParse(url)) return 'must be an absolute URL';
  const { protocol, username, password, hostname } = new URL(url);
  if (username || password) return 'must not contain credentials';
  if (protocol === 'https:') return null;
  if (!allowLocalHttp) return 'must use https';
  if (protocol === 'http:' && LOCAL_HOSTS.has(hostname)) return null;
  return 'must use https (plain http only on localhost, 127.0.0.1 or [::1])';
}

/**
 * The URL parser has already turned numeric hosts (`2130706433`, `0x7f.1`) into dotted
 * addresses, so a host is either a canonical IP literal or a name to resolve.
 */
async function hostRefusal(hostname: string, targets: WebhookTargets): Promise<string | null> {
  const literal = hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(literal)) {
    const reason = blockedAddressReason(literal);
    return reason === null ? null : `points to a blocked address: ${literal} (${reason})`;
  }
  const addresses = await targets.resolve(hostname);
  if (addresses.length === 0) return `names a host that does not resolve: ${hostname}`;
  for (const address of addresses) {
    const reason = blockedAddressReason(address);
    if (reason) return `names ${hostname}, which resolves to a blocked address: ${address} (${reason})`;
  }
  return null;
}
