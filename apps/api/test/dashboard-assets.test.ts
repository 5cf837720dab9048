import { readdirSync, readFileSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DASHBOARD_DIR } from '../src/plugins/dashboard.js';
import { useTestApp } from './harness.js';

/** The built dashboard (the test setup builds it as `npm start` does, without the source-map flag). */
const indexHtml = readFileSync(`${DASHBOARD_DIR}index.html`);
const entry = /<script type="module" crossorigin src="\/assets\/([^"]+\.js)"/.exec(indexHtml.toString())![1]!;
const stylesheet = readdirSync(`${DASHBOARD_DIR}assets`).find((name) => name.endsWith('.css'))!;

const IMMUTABLE = 'public, max-age=31536000, immutable';

/** What each kind of answer is, read from the files beside the build's compressed copies. */
const files = [
  {
    what: 'the entry script',
    url: `/assets/${entry}`,
    file: `assets/${entry}`,
    type: 'application/javascript; charset=utf-8',
    cache: IMMUTABLE,
  },
  { what: 'the stylesheet', url: `/assets/${stylesheet}`, file: `assets/${stylesheet}`, type: 'text/css; charset=utf-8', cache: IMMUTABLE },
  {
    what: 'a page of the app (index.html)',
    url: '/approvals/3f2c',
    file: 'index.html',
    type: 'text/html; charset=utf-8',
    cache: 'no-cache',
  },
  { what: 'the root page (index.html)', url: '/', file: 'index.html', type: 'text/html; charset=utf-8', cache: 'no-cache' },
];

const decode = { br: brotliDecompressSync, gzip: gunzipSync } as const;

describe('the dashboard as it travels', () => {
  const t = useTestApp();

  describe.each(files)('$what', ({ url, file, type, cache }) => {
    const original = readFileSync(`${DASHBOARD_DIR}${file}`);

    it.each([
      { accepted: 'br', encoding: 'br' as const },
      { accepted: 'gzip', encoding: 'gzip' as const },
      // What Chromium sends: brotli is preferred when both are accepted.
      { accepted: 'gzip, deflate, br, zstd', encoding: 'br' as const },
    ])('comes as $encoding when the browser accepts $accepted, and decodes to the file', async ({ accepted, encoding }) => {
      const response = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': accepted } });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-encoding']).toBe(encoding);
      expect(response.headers.vary).toMatch(/\baccept-encoding\b/i);
      expect(response.headers['content-type']).toBe(type);
      expect(response.headers['cache-control']).toBe(cache);
      expect(Number(response.headers['content-length'])).toBe(response.rawPayload.length);
      expect(response.rawPayload.length).toBeLessThan(original.length);
      expect(decode[encoding](response.rawPayload).equals(original)).toBe(true);
    });

    it('comes as it is to a client that accepts no encoding, still varying by it', async () => {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-encoding']).toBeUndefined();
      expect(response.headers.vary).toMatch(/\baccept-encoding\b/i);
      expect(response.headers['content-type']).toBe(type);
      expect(response.headers['cache-control']).toBe(cache);
      expect(response.rawPayload.equals(original)).toBe(true);
    });
  });

  it('publishes no source maps from a default build', async () => {
    expect(readdirSync(`${DASHBOARD_DIR}assets`).filter((name) => name.includes('.map'))).toEqual([]);
    for (const accepted of [undefined, 'br']) {
      const response = await t.app.inject({
        method: 'GET',
        url: `/assets/${entry}.map`,
        headers: accepted ? { 'accept-encoding': accepted } : {},
      });
      expect(response.statusCode).toBe(404);
    }
    expect(indexHtml.toString()).not.toContain('sourceMappingURL');
    expect(readFileSync(`${DASHBOARD_DIR}assets/${entry}`, 'utf8')).not.toContain('sourceMappingURL');
  });
});
