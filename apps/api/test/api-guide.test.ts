import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { codeToStatus } from '@agov/domain';
import { startReceiver } from '../../../test/receiver.js';
import { request, signupTenant, useTestApp } from './harness.js';

const GUIDE = readFileSync(new URL('../../../docs/api-guide.md', import.meta.url), 'utf8');

/** The text of one `## ` section of the guide. */
function section(title: string): string {
  const start = GUIDE.indexOf(`\n## ${title}\n`);
  if (start === -1) throw new Error(`docs/api-guide.md has no "## ${title}" section`);
  const end = GUIDE.indexOf('\n## ', start + 1);
  return GUIDE.slice(start, end === -1 ? undefined : end);
}

type Verifier = (secret: string, rawBody: string, headers: IncomingHttpHeaders, toleranceSeconds?: number) => boolean;

describe("the guide's webhook verification code, on a delivery the service signed", () => {
  // Development mode: the receiver listens on the local host, which production refuses.
  const t = useTestApp({ env: { NODE_ENV: 'development' } });
  const workDir = mkdtempSync(join(tmpdir(), 'agov-guide-'));
  afterAll(() => rmSync(workDir, { recursive: true, force: true }));

  /** The guide's `js` block, as a reader would save it to a module of their own. */
  async function guideVerifiers(): Promise<{ verifySignature: Verifier; verifyStandardSignature: Verifier }> {
    const code = /^```js\n([\s\S]*?)^```$/m.exec(section('Webhooks'))?.[1];
    if (!code) throw new Error('the Webhooks section has no js block');
    const file = join(workDir, 'verify-webhook.mjs');
    writeFileSync(file, code);
    return import(pathToFileURL(file).href);
  }

  it('accepts both signatures as sent, and refuses a changed body, a foreign secret and an old timestamp', async () => {
    const { verifySignature, verifyStandardSignature } = await guideVerifiers();
    const receiver = await startReceiver(200);
    try {
      const tenant = await signupTenant(t.app);
      const created = await request(t.app, tenant.admin, {
        method: 'POST',
        url: '/api/v1/webhooks',
        payload: { url: receiver.url, events: ['approval.requested'] },
      });
      expect(created.statusCode, created.body).toBe(201);
      const { id, secret } = created.json().data;
      const sent = await request(t.app, tenant.admin, { method: 'POST', url: `/api/v1/webhooks/${id}/test` });
      expect(sent.json()).toMatchObject({ delivered: true, http_status: 200 });
      const { body, headers } = (await receiver.waitFor(1))[0]!;

      expect(verifySignature(secret, body, headers)).toBe(true);
      expect(verifyStandardSignature(secret, body, headers)).toBe(true);

      const changed = body.replace('"test"', '"tesT"');
      expect(changed).not.toBe(body);
      expect(verifySignature(secret, changed, headers)).toBe(false);
      expect(verifyStandardSignature(secret, changed, headers)).toBe(false);
      const foreign = 'f'.repeat(64);
      expect(verifySignature(foreign, body, headers)).toBe(false);
      expect(verifyStandardSignature(foreign, body, headers)).toBe(false);

      // Correctly signed, but ten minutes old: a replay.
      const old = Math.floor(Date.now() / 1000) - 600;
      const replayed = {
        ...headers,
        'webhook-timestamp': String(old),
        'webhook-signature': `v1,${createHmac('sha256', secret).update(`${headers['webhook-id']}.${old}.${body}`).digest('base64')}`,
      };
      expect(verifyStandardSignature(secret, body, replayed, 900)).toBe(true);
      expect(verifyStandardSignature(secret, body, replayed)).toBe(false);
    } finally {
      await receiver.close();
    }
  });
});

describe("the guide's error table", () => {
  it('names every error code the service answers, with its status', () => {
    const rows = section('Errors')
      .split('\n')
      .map((line) => /^\| (\d{3}) +\| `([a-z_]+)` +\|/.exec(line))
      .filter((match) => match !== null)
      .map((match) => [match[2], Number(match[1])]);
    const documented = Object.fromEntries(rows);
    expect(rows.length).toBe(Object.keys(documented).length);
    for (const [code, status] of Object.entries(codeToStatus)) expect(documented[code], code).toBe(status);
  });
});
