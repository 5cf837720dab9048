import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { agents, approvalRequests, policyRules, users, webhookEndpoints } from '@agov/db';
import { expectErrorBody, FORBIDDEN, notFound } from './assertions.js';
import { client } from './client.js';
import { action, createAgent, createPolicy } from './fixtures.js';
import {
  keyWithScopes,
  PASSWORD,
  request,
  sessionWithRole,
  signupTenant,
  type Credential,
  type Tenant,
  uniqueEmail,
  useTestApp,
} from './harness.js';
import { evaluation } from './scenarios.js';

/**
 * The spec's endpoint-access table, written out here independently of the code's own
 * declarations: `scope` is what an API key needs (`any` = any key, `none` = keys refused,
 * where the spec says "not listed"),
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
  // CONTRACT, "Policy lifecycle decisions".
  { method: 'GET', path: '/api/v1/policies/shadow-report', scope: 'policies:read', roles: ANY_ROLE },
  { method: 'POST', path: '/api/v1/policies/simulate', scope: 'policies:write', roles: ADMIN },
  // Policies as code (docs/policy-lifecycle.md).
  { method: 'GET', path: '/api/v1/policies/revision', scope: 'policies:read', roles: ANY_ROLE },
  { method: 'POST', path: '/api/v1/policies/apply', scope: 'policies:write', roles: ADMIN },
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
  { method: 'POST', path: '/api/v1/delegations', scope: 'none', roles: REVIEWER_OR_ADMIN },
  { method: 'GET', path: '/api/v1/delegations', scope: 'none', roles: REVIEWER_OR_ADMIN },
  { method: 'DELETE', path: '/api/v1/delegations/:id', scope: 'none', roles: REVIEWER_OR_ADMIN },
  // CONTRACT, "Approval decisions": a grant is redeemed with any credential of its tenant; its key rotated by an admin.
  { method: 'POST', path: '/api/v1/grants/:jti/redeem', scope: 'any', roles: ANY_ROLE },
  { method: 'POST', path: '/api/v1/settings/grant-keys/rotate', scope: 'admin', roles: ADMIN },
  { method: 'GET', path: '/api/v1/settings/grants', scope: 'admin', roles: ADMIN },
  { method: 'PUT', path: '/api/v1/settings/grants', scope: 'admin', roles: ADMIN },
  { method: 'GET', path: '/api/v1/webhooks', scope: 'admin', roles: ADMIN },
  { method: 'POST', path: '/api/v1/webhooks', scope: 'admin', roles: ADMIN },
  { method: 'GET', path: '/api/v1/webhooks/:id', scope: 'admin', roles: ADMIN },
  { method: 'PATCH', path: '/api/v1/webhooks/:id', scope: 'admin', roles: ADMIN },
  { method: 'DELETE', path: '/api/v1/webhooks/:id', scope: 'admin', roles: ADMIN },
  { method: 'GET', path: '/api/v1/webhooks/:id/deliveries', scope: 'admin', roles: ADMIN },
  { method: 'POST', path: '/api/v1/webhooks/:id/test', scope: 'admin', roles: ADMIN },
  { method: 'POST', path: '/api/v1/billing/checkout', scope: 'none', roles: ADMIN },
  { method: 'POST', path: '/api/v1/billing/portal', scope: 'none', roles: ADMIN },
  { method: 'GET', path: '/api/v1/billing/status', scope: 'any', roles: ANY_ROLE },
  // CONTRACT: the chat settings, the chat test action and the notification settings (admin).
  { method: 'GET', path: '/api/v1/integrations/chat', scope: 'admin', roles: ADMIN },
  { method: 'PUT', path: '/api/v1/integrations/chat', scope: 'admin', roles: ADMIN },
  { method: 'POST', path: '/api/v1/integrations/chat/test', scope: 'admin', roles: ADMIN },
  { method: 'GET', path: '/api/v1/settings/notifications', scope: 'admin', roles: ADMIN },
  { method: 'PUT', path: '/api/v1/settings/notifications', scope: 'admin', roles: ADMIN },
];

/** No credential: each checks its own (a password, the provider's signature, the chat platform's, a mailed token), or serves public keys. */
const PUBLIC_ROUTES = [
  'GET /health',
  'GET /.well-known/jwks.json',
  'POST /api/v1/auth/signup',
  'POST /api/v1/auth/login',
  'POST /api/v1/email-confirmations',
  'POST /api/v1/billing/webhook',
  'POST /api/v1/integrations/chat/callback',
];

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

// With a payment provider configured, so that billing answers from its rules rather than 501.
const t = useTestApp({ env: { STRIPE_SECRET_KEY: 'sk_test_access_table' } });
let tenant: Tenant;
const keys: Record<string, Credential> = {};

beforeAll(async () => {
  tenant = await signupTenant(t.app);
  for (const scope of SCOPES) keys[scope] = await keyWithScopes(t.app, tenant, [scope]);
});

const call = (row: Row, credential: Credential) =>
  request(t.app, credential, {
    method: row.method as 'GET',
    url: row.path.replace(':id', randomUUID()).replace(':traceId', randomUUID()).replace(':jti', randomUUID()),
    payload: row.method === 'GET' || row.method === 'DELETE' ? undefined : {},
  });

/** The role a refused caller is told it needs: the least the row admits (viewer < reviewer < admin). */
const leastRole = (row: Row) => ['viewer', 'reviewer', 'admin'].find((role) => row.roles.includes(role));

/** Admitted means past the access check, and never a server error. */
const admittedCleanly = (status: number) => status !== 401 && status !== 403 && status < 500;

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
        const admitted = row.scope !== 'none' && (row.scope === 'any' || scope === 'admin' || scope === row.scope);
        const response = await call(row, keys[scope]!);
        if (admitted) expect(admittedCleanly(response.statusCode), `${scope}: ${response.statusCode} ${response.body}`).toBe(true);
        else
          expectErrorBody(response, 403, {
            ...FORBIDDEN,
            details: row.scope === 'none' ? { required_role: leastRole(row), role: null } : { required_scope: row.scope, scopes: [scope] },
          });
      }
    });

    it('admits exactly the session roles the table names', async () => {
      // Fresh sessions per row: a row such as logout ends the session it is called with.
      for (const role of ANY_ROLE) {
        const response = await call(row, await sessionWithRole(t.app, tenant, role));
        if (row.roles.includes(role))
          expect(admittedCleanly(response.statusCode), `${role}: ${response.statusCode} ${response.body}`).toBe(true);
        else
          expectErrorBody(response, 403, {
            ...FORBIDDEN,
            details: row.roles.length === 0 ? { required_scope: row.scope, scopes: [] } : { required_role: leastRole(row), role },
          });
      }
    });
  });
});

/** A body each route accepts, so that only the resource's owner decides the answer. */
const VALID_BODIES: Record<string, object> = {
  'PATCH /api/v1/users/:id': { name: 'Renamed' },
  'PATCH /api/v1/agents/:id': { description: 'Renamed' },
  'PATCH /api/v1/policies/:id': { priority: 1 },
  'POST /api/v1/approvals/:id/approve': { approver_name: 'Intruder' },
  'POST /api/v1/approvals/:id/deny': { approver_name: 'Intruder' },
  'POST /api/v1/traces/:traceId/outcome': { status: 'success' },
  'PATCH /api/v1/webhooks/:id': { description: 'Renamed' },
};

describe("another tenant's resources", () => {
  // Every kind of resource a route can name, owned by another tenant.
  const theirs: Record<string, string> = {};
  let theirKey: Credential = null;
  beforeAll(async () => {
    const other = await signupTenant(t.app);
    const api = client(t.app);
    const agent = await createAgent(t.app, other.admin);
    const rule = await createPolicy(t.app, other.admin, agent.id, { policy_effect: 'approval_required' });
    const evaluated = await evaluation(t.app, other, action(agent.id));
    const user = await api.post(other.admin, '/api/v1/users', {
      name: 'Their reviewer',
      email: uniqueEmail('theirs'),
      password: PASSWORD,
      role: 'reviewer',
    });
    const key = await keyWithScopes(t.app, other, ['agents:read']);
    theirKey = { apiKey: key.apiKey };
    const hook = await api.post(other.admin, '/api/v1/webhooks', {
      url: 'https://93.184.215.14/theirs',
      events: ['approval.requested'],
    });
    Object.assign(theirs, {
      users: user.json().data.id,
      'api-keys': key.id,
      agents: agent.id,
      policies: rule.id,
      approvals: evaluated.approval_request_id!,
      traces: evaluated.trace_id,
      webhooks: hook.json().data.id,
    });
  });

  // Asked with a key; routes for people only (delegations) are covered in approvals-quorum.test.ts.
  const withId = ACCESS_TABLE.filter((row) => /:(id|traceId)/.test(row.path) && row.scope !== 'none');
  /** What each collection's 404 calls the resource. */
  const RESOURCE: Record<string, string> = {
    users: 'User',
    'api-keys': 'API key',
    agents: 'Agent',
    policies: 'Policy rule',
    approvals: 'Approval request',
    traces: 'Trace',
    webhooks: 'Webhook endpoint',
  };

  it.each(withId)("$method $path answers 404 to this tenant's admin key", async (row) => {
    const collection = row.path.split('/')[3]!;
    const id = theirs[collection];
    expect(id, `no resource of the other tenant for ${collection}`).toBeDefined();
    const response = await request(t.app, keys.admin!, {
      method: row.method as 'GET',
      url: row.path.replace(/:(id|traceId)/, id!),
      payload: VALID_BODIES[`${row.method} ${row.path}`] ?? (row.method === 'GET' || row.method === 'DELETE' ? undefined : {}),
    });
    expectErrorBody(response, 404, notFound(RESOURCE[collection]!));
  });

  it('leaves every one of them as it was', async () => {
    const [agent] = await t.runtime.database.db.select().from(agents).where(eq(agents.id, theirs.agents!));
    expect(agent).toMatchObject({ lifecycleState: 'active', description: 'Reconciles supplier invoices' });
    const [approval] = await t.runtime.database.db.select().from(approvalRequests).where(eq(approvalRequests.id, theirs.approvals!));
    expect(approval).toMatchObject({ status: 'pending', approverName: null });
    const [rule] = await t.runtime.database.db.select().from(policyRules).where(eq(policyRules.id, theirs.policies!));
    expect(rule).toMatchObject({ isActive: true, priority: 10, policyVersion: 1 });
    expect(await t.runtime.database.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, theirs.webhooks!))).toHaveLength(1);
    expect(await t.runtime.database.db.select().from(users).where(eq(users.id, theirs.users!))).toHaveLength(1);
    // Neither rotated nor deleted: the key still works.
    expect((await request(t.app, theirKey, { method: 'GET', url: '/api/v1/agents' })).statusCode).toBe(200);
  });
});
