import { beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../support/errors.js';
import { assertWebhookTarget, blockedAddressReason, type WebhookTargets } from './targets.js';

/** Names with fixed answers, so no test needs the internet; any other name does not resolve. */
const fakeZone: Record<string, string[]> = {
  'public.example': ['93.184.215.14'],
  'mixed.example': ['93.184.215.14', '10.0.0.1'],
  'ula.example': ['fd00::5'],
  localhost: ['127.0.0.1', '::1'],
};

let lookups = 0;
const resolve = async (hostname: string) => {
  lookups += 1;
  return fakeZone[hostname] ?? [];
};

/** As the runtime decides them for each mode. */
const TARGETS: Record<'production' | 'development', WebhookTargets> = {
  production: { allowPrivate: false, allowLocalHttp: false, resolve },
  development: { allowPrivate: true, allowLocalHttp: true, resolve },
};

beforeEach(() => {
  lookups = 0;
});

async function refusal(url: string, mode: 'production' | 'development', field?: string) {
  const error = await assertWebhookTarget(url, TARGETS[mode], field).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('blockedAddressReason', () => {
  it.each([
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.254', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fc00::1', 'unique local'],
    ['fd12:3456::1', 'unique local'],
    ['ff02::1', 'multicast'],
    ['::ffff:10.0.0.1', 'IPv4-mapped IPv6 (private)'],
    ['::ffff:127.0.0.1', 'IPv4-mapped IPv6 (loopback)'],
    ['::ffff:7f00:1', 'IPv4-mapped IPv6 (loopback)'],
    ['::ffff:8.8.8.8', 'IPv4-mapped IPv6'],
    // As the URL parser writes `[::127.0.0.1]`; ipaddr.js reads the dotted form itself as mapped.
    ['::7f00:1', 'IPv4-compatible IPv6'],
    ['::808:808', 'IPv4-compatible IPv6'],
    ['64:ff9b::a00:1', 'NAT64'],
    ['2002:a00:1::1', '6to4'],
    ['2001::1', 'Teredo'],
    ['2001:db8::1', 'reserved'],
  ])('refuses %s as %s', (address, reason) => {
    expect(blockedAddressReason(address)).toBe(reason);
  });

  it.each(['8.8.8.8', '93.184.215.14', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '2a00:1450:4001::200e'])(
    'allows the public unicast address %s',
    (address) => {
      expect(blockedAddressReason(address)).toBeNull();
    },
  );

  it.each(['example.com', '', '2130706433', '0x7f.1', '010.0.0.1', '[::1]'])('refuses %j, which is not a canonical IP address', (text) => {
    expect(blockedAddressReason(text)).toBe('not an IP address');
  });
});

describe('assertWebhookTarget in production', () => {
  it.each([
    ['http://2130706433/', 'must use https'],
    ['https://2130706433/', 'points to a blocked address: 127.0.0.1 (loopback)'],
    ['https://0x7f.1/', 'points to a blocked address: 127.0.0.1 (loopback)'],
    ['https://[::ffff:7f00:1]/', 'points to a blocked address: ::ffff:7f00:1 (IPv4-mapped IPv6 (loopback))'],
    ['https://10.1.2.3/x', 'points to a blocked address: 10.1.2.3 (private)'],
    ['https://169.254.169.254/latest/meta-data', 'points to a blocked address: 169.254.169.254 (link-local)'],
    ['https://[fd00::1]/', 'points to a blocked address: fd00::1 (unique local)'],
    ['https://mixed.example/', 'names mixed.example, which resolves to a blocked address: 10.0.0.1 (private)'],
    ['https://ula.example/', 'names ula.example, which resolves to a blocked address: fd00::5 (unique local)'],
    ['https://no-such-host.invalid/', 'names a host that does not resolve: no-such-host.invalid'],
    ['http://public.example/', 'must use https'],
    ['http://localhost:3000/', 'must use https'],
  ])('refuses %s: %s', async (url, reason) => {
    const error = await refusal(url, 'production');
    expect(error.message).toBe(`url ${reason}`);
    expect(error.details).toEqual({ fields: [{ field: 'url', message: reason }] });
  });

  it('refuses localhost by what it resolves to', async () => {
    const error = await refusal('https://localhost/', 'production');
    expect(error.message).toBe('url names localhost, which resolves to a blocked address: 127.0.0.1 (loopback)');
  });

  it('accepts https to a public address or a name that resolves only to public addresses', async () => {
    await expect(assertWebhookTarget('https://8.8.8.8/hook', TARGETS.production)).resolves.toBeUndefined();
    await expect(assertWebhookTarget('https://[2606:4700::1111]/hook', TARGETS.production)).resolves.toBeUndefined();
    await expect(assertWebhookTarget('https://public.example:8443/hook?x=1', TARGETS.production)).resolves.toBeUndefined();
    expect(lookups).toBe(1);
  });
});

describe('assertWebhookTarget in development and test', () => {
  it('accepts plain http on the local host in development', async () => {
    for (const url of ['http://127.0.0.1:9/x', 'http://localhost:3000/hook', 'http://[::1]:8080/']) {
      await expect(assertWebhookTarget(url, TARGETS.development)).resolves.toBeUndefined();
    }
  });

  it.each(['http://example.com/', 'http://10.0.0.1/', 'http://127.0.0.2/', 'http://localhost.example/'])(
    'refuses plain http off the local host in development: %s',
    async (url) => {
      const error = await refusal(url, 'development');
      expect(error.details).toEqual({
        fields: [{ field: 'url', message: 'must use https (plain http only on localhost, 127.0.0.1 or [::1])' }],
      });
    },
  );

  it('blocks no private range and resolves no name in development', async () => {
    for (const url of ['https://127.0.0.1/', 'https://10.1.2.3/', 'https://[fd00::1]/', 'https://no-such-host.invalid/']) {
      await expect(assertWebhookTarget(url, TARGETS.development)).resolves.toBeUndefined();
    }
    expect(lookups).toBe(0);
  });
});

describe('assertWebhookTarget in every mode', () => {
  it.each(['production', 'development'] as const)('refuses credentials, never echoing them (%s)', async (mode) => {
    for (const url of ['https://user:hunter2@public.example/', 'https://:hunter2@public.example/', 'https://user@public.example/']) {
      const error = await refusal(url, mode);
      expect(error.message).toBe('url must not contain credentials');
      expect(JSON.stringify(error.details)).not.toContain('hunter2');
    }
  });

  it.each(['production', 'development'] as const)('refuses text that is not an absolute URL (%s)', async (mode) => {
    for (const url of ['', 'example.com/hook', '/hook', 'https://']) {
      const error = await refusal(url, mode);
      expect(error.details).toEqual({ fields: [{ field: 'url', message: 'must be an absolute URL' }] });
    }
  });

  it.each(['ftp://public.example/', 'javascript:alert(1)', 'file:///etc/passwd'])('refuses the non-http scheme of %s', async (url) => {
    const error = await refusal(url, 'development');
    expect(error.details).toEqual({
      fields: [{ field: 'url', message: 'must use https (plain http only on localhost, 127.0.0.1 or [::1])' }],
    });
  });

  it('is a 400 validation_error naming the field it was given', async () => {
    const error = await refusal('https://10.0.0.1/', 'production', 'target');
    expect(error.code).toBe('validation_error');
    expect(error.status).toBe(400);
    expect(error.message).toBe('target points to a blocked address: 10.0.0.1 (private)');
    expect(error.details).toEqual({ fields: [{ field: 'target', message: 'points to a blocked address: 10.0.0.1 (private)' }] });
  });
});
