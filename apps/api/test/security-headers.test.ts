import type { LightMyRequestResponse } from 'fastify';
import { readdirSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_DIR } from '../src/plugins/dashboard.js';
import { createTestApp, request, signupTenant, type Tenant, useTestApp } from './harness.js';

const BASE_POLICY = "default-src 'self';base-uri 'none';form-action 'self';frame-ancestors 'none';object-src 'none'";
/** With the hashes of the two <style> elements React Aria writes itself. */
const APP_POLICY = `${BASE_POLICY};style-src 'self' 'sha256-38RhXrc7EdReTKsOm23ZPOCUgniTUUcjky8QOOrQx6o=' 'sha256-gYiS/BvZvRcK27JIXTuwhZ3hs2+VJ1X+2gUlE+farlg='`;
const DOCS_POLICY = `${BASE_POLICY};img-src 'self' data:`;
const HSTS = 'max-age=31536000';

/** Helmet's headers as the service sets them, apart from the policy and HSTS. */
const EVERY_ANSWER = {
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'DENY',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};
const NAMES = [...Object.keys(EVERY_ANSWER), 'content-security-policy', 'strict-transport-security'];

function securityHeaders(response: LightMyRequestResponse) {
  return Object.fromEntries(NAMES.filter((name) => response.headers[name] !== undefined).map((name) => [name, response.headers[name]]));
}

/** The built dashboard's files (the test setup builds it). */
const script = readdirSync(`${DASHBOARD_DIR}assets`).find((name) => name.endsWith('.js'));

/** Each kind of answer: its path, the status and type it has, and the policy it carries. */
function answers(tenant: () => Tenant) {
  return [
    { what: 'a page of the dashboard', url: '/approvals/3f2c', status: 200, type: 'text/html', policy: APP_POLICY },
    { what: "one of the dashboard's scripts", url: `/assets/${script}`, status: 200, type: 'javascript', policy: APP_POLICY },
    {
      what: 'an API answer',
      url: '/api/v1/agents',
      credential: () => tenant().admin,
      status: 200,
      type: 'application/json',
      policy: APP_POLICY,
    },
    { what: 'an API error (no credential)', url: '/api/v1/agents', status: 401, type: 'application/json', policy: APP_POLICY },
    { what: 'an unknown API route', url: '/api/v1/nothing-here', status: 404, type: 'application/json', policy: APP_POLICY },
    { what: 'a path the router cannot decode', url: '/api/v1/agents/%E0%A4%A', status: 404, type: 'application/json', policy: APP_POLICY },
    { what: 'the health check', url: '/health', status: 200, type: 'application/json', policy: APP_POLICY },
    { what: 'the API reference', url: '/docs', status: 200, type: 'text/html', policy: DOCS_POLICY },
    { what: "the API reference's document", url: '/docs/json', status: 200, type: 'application/json', policy: DOCS_POLICY },
  ];
}

describe.each([
  { publicUrl: 'http://127.0.0.1:4000', hsts: {} },
  { publicUrl: 'https://governance.example.test', hsts: { 'strict-transport-security': HSTS } },
])('security headers with PUBLIC_URL $publicUrl', ({ publicUrl, hsts }) => {
  const t = useTestApp({ env: { PUBLIC_URL: publicUrl } });
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await signupTenant(t.app);
  });

  it.each(answers(() => tenant))('on $what', async ({ url, credential, status, type, policy }) => {
    const response = await request(t.app, credential?.() ?? null, { method: 'GET', url });
    expect(response.statusCode, response.body).toBe(status);
    expect(response.headers['content-type']).toContain(type);
    expect(securityHeaders(response)).toEqual({ ...EVERY_ANSWER, 'content-security-policy': policy, ...hsts });
  });

  it('on an answer to a change, and in development too', async () => {
    const development = await createTestApp({ env: { PUBLIC_URL: publicUrl, NODE_ENV: 'development' } });
    try {
      const response = await development.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { email: 'nobody@example.test', password: 'wrong password!' },
      });
      expect(response.statusCode).toBe(401);
      expect(securityHeaders(response)).toEqual({ ...EVERY_ANSWER, 'content-security-policy': APP_POLICY, ...hsts });
    } finally {
      await development.close();
    }
  });
});
