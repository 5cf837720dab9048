import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestApp,
  keyWithScopes,
  request,
  sessionWithRole,
  signupTenant,
  type Credential,
  type Tenant,
  type TestApp,
} from './harness.js';

/**
 * The spec's endpoint-access table, written out here independently of the code's own
 * declarations: `scope` is what an API key needs (`any` = any key, `none` = keys refused),
 * `roles` the session roles admitted. Every route in the OpenAPI document must appear.
 */
type Row = { method: string; path: string; scope: string; roles: readonly string[] };
const ANY_ROLE = ['admin', 'reviewer', 'viewer'] as const;
const ADMIN = ['admin'] as const;
const REVIEWER_OR_ADMIN = ['reviewer', 'admin'] as const;

export const ACCESS_TABLE: Row[] = [
  { method: 'POST', path: '/api/v1/auth/logout', scope: 'any', roles: ANY_ROLE },
  { method: 'GET', path: '/api/v1/auth/me', scope: 'any', roles: ANY_ROLE },
  { method: 'GET', path: '/api/v1/users', scope: 'admin', roles: ADMIN },
  { method: 'POST', path: '/api/v1/users', scope: 'admin', roles: ADMIN },
  { method: 'PATCH', path: '/api/v1/users/:id', scope: 'admin', roles: ADMIN },
  { method: 'DELETE', path: '/api/v1/users/:id', scope: 'admin', roles: ADMIN },
  { method: 'GET', path: '/api/v1/api-keys', scope: 'admin', roles: ADMIN },
  { method: 'POST', path: '/api/v1/api-keys', scope: 'admin', roles: ADMIN },
  { method: 'DELETE', path: '/api/v1/api-keys/:id', scope: 'admin', roles: ADMIN },
  { method: 'POST', path: '/api/v1/api-keys/:id/rotate', scope: 'admin', roles: ADMIN },
  { method: 'GET', path: '/api/v1/agents', scope: 'agents:read', roles: ANY_ROLE },
  { method: 'GET', path: '/api/v1/agents/:id', scope: 'agents:read', roles: ANY_ROLE },
  { method: 'POST', path: '/api/v1/agents', scope: 'agents:write', roles: ADMIN },
  { method: 'PATCH', path: '/api/v1/agents/:id', scope: 'agents:write', roles: ADMIN },
  { method: 'POST', path: '/api/v1/agents/:id/suspend', scope: 'agents:lifecycle', roles: ADMIN },
  { method: 'POST', path: '/api/v1/agents/:id/revoke', scope: 'agents:lifecycle', roles: ADMIN },
  { method: 'POST', path: '/api/v1/agents/:id/reactivate', scope: 'agents:lifecycle', roles: ADMIN },
  { method: 'GET', path: '/api/v1/policies', scope: 'policies:read', roles: ANY_ROLE },
  { method: 'GET', path: '/api/v1/policies/:id', scope: 'policies:read', roles: ANY_ROLE },
  { method: 'GET', path: '/api/v1/policies/:id/versions', scope: 'policies:read', roles: ANY_ROLE },
  { method: 'POST', path: '/api/v1/policies/test', scope: 'policies:read', roles: ANY_ROLE },
  { method: 'POST', path: '/api/v1/policies', scope: 'policies:write', roles: ADMIN },
  { method: 'PATCH', path: '/api/v1/policies/:id', scope: 'policies:write', roles: ADMIN },
  { method: 'DELETE', path: '/api/v1/policies/:id', scope: 'policies:write', roles: ADMIN },
  { method: 'POST', path: '/api/v1/evaluate', scope: 'evaluate', roles: [] },
  { method: 'GET', path: '/api/v1/traces', scope: 'traces:read', roles: ANY_ROLE },
  { method: 'GET', path: '/api/v1/traces/:traceId', scope: 'traces:read', roles: ANY_ROLE },
  { method: 'GET', path: '/api/v1/traces/:traceId/verify', scope: 'traces:read', roles: ANY_ROLE },
  { method: 'POST', path: '/api/v1/traces/:traceId/outcome', scope: 'traces:write', roles: ANY_ROLE },
  { method: 'GET', path: '/api/v1/traces/:traceId/export', scope: 'traces:read', roles: REVIEWER_OR_ADMIN },
  { method: 'GET', path: '/api/v1/traces/export', scope: 'admin', roles: REVIEWER_OR_ADMIN },
  { method: 'GET', path: '/api/v1/audit/export', scope: 'admin', roles: REVIEWER_OR_ADMIN },
  { method: 'GET', path: '/api/v1/approvals', scope: 'approvals:read', roles: ANY_ROLE },
  { method: 'GET', path: '/api/v1/approvals/count', scope: 'approvals:read', roles: ANY_ROLE },
  { method: 'GET', path: '/api/v1/approvals/:id', scope: 'approvals:read', roles: ANY_ROLE },
  { method: 'GET', path: '/api/v1/approvals/:id/status', scope: 'approvals:read', roles: ANY_ROLE },
  { method: 'POST', path: '/api/v1/approvals/:id/approve', scope: 'approvals:write', roles: REVIEWER_OR_ADMIN },
  { method: 'POST', path: '/api/v1/approvals/:id/deny', scope: 'approvals:write', roles: REVIEWER_OR_ADMIN },
  { method: 'GET', path: '/api/v1/webhooks', scope: 'admin', roles: ADMIN },
  { method: 'POST', path: '/api/v1/webhooks', scope: 'admin', roles: ADMIN },
  { method: 'GET', path: '/api/v1/webhooks/:id', scope: 'admin', roles: ADMIN },
  { method: 'PATCH', path: '/api/v1/webhooks/:id', scope: 'admin', roles: ADMIN },
  { method: 'DELETE', path: '/api/v1/webhooks/:id', scope: 'admin', roles: ADMIN },
  { method: 'GET', path: '/api/v1/webhooks/:id/deliveries', scope: 'admin', roles: ADMIN },
  { method: 'POST', path: '/api/v1/webhooks/:id/test', scope: 'admin', roles: ADMIN },
];

const PUBLIC_ROUTES = ['GET /health', 'POST /api/v1/auth/signup', 'POST /api/v1/auth/login'];

const SCOPES = [
  'evaluate',
  'agents:read',
  'agents:write',
  'agents:lifecycle',
  'policies:read',
  'policies:write',
  'traces:read',
  'traces:write',
  'approvals:read',
  'approvals:write',
  'admin',
];

let t: TestApp;
let tenant: Tenant;
const keys: Record<string, Credential> = {};

beforeAll(async () => {
  t = await createTestApp();
  tenant = await signupTenant(t.app);
  for (const scope of SCOPES) keys[scope] = await keyWithScopes(t.app, tenant, [scope]);
});
afterAll(() => t.close());

const call = (row: Row, credential: Credential) =>
  request(t.app, credential, {
    method: row.method as 'GET',
    url: row.path.replace(':id', randomUUID()).replace(':traceId', randomUUID()),
    payload: row.method === 'GET' || row.method === 'DELETE' ? undefined : {},
  });

const isAuthFailure = (status: number) => status === 401 || status === 403;

describe('endpoint access table', () => {
  it('covers every route the service exposes', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    const exposed = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
    );
    const listed = [...ACCESS_TABLE.map((row) => `${row.method} ${row.path}`), ...PUBLIC_ROUTES];
    expect(exposed.sort()).toEqual(listed.sort());
  });

  describe.each(ACCESS_TABLE)('$method $path', (row) => {
    it('refuses a request without credentials with 401', async () => {
      const response = await call(row, null);
      expect(response.statusCode).toBe(401);
      expect(response.json().error).toBe('unauthorized');
    });

    it('admits exactly the API keys the table names', async () => {
      for (const scope of SCOPES) {
        const admitted = row.scope === 'any' || scope === 'admin' || scope === row.scope;
        const response = await call(row, keys[scope]!);
        if (admitted) expect(isAuthFailure(response.statusCode), `${scope}: ${response.body}`).toBe(false);
        else expect(response.statusCode, `${scope} should be refused`).toBe(403);
      }
    });

    it('admits exactly the session roles the table names', async () => {
      // Fresh sessions per row: a row such as logout ends the session it is called with.
      for (const role of ANY_ROLE) {
        const response = await call(row, await sessionWithRole(t.app, tenant, role));
        if (row.roles.includes(role)) expect(isAuthFailure(response.statusCode), `${role}: ${response.body}`).toBe(false);
        else expect(response.statusCode, `${role} should be refused`).toBe(403);
      }
    });
  });
});
