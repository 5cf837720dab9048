import { readFileSync } from 'node:fs';
import { WEBHOOK_EVENTS } from '@agov/domain';
import { describe, expect, it } from 'vitest';
import { CONTRACT_FILE } from '../scripts/write-contract.js';
import { useTestApp } from './harness.js';

const t = useTestApp();

type Operation = { operationId?: string };

async function operations() {
  const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
    paths: Record<string, Record<string, Operation>>;
  };
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ route: `${method.toUpperCase()} ${path}`, operation })),
  );
}

describe('the OpenAPI document', () => {
  it('names every operation with a unique camelCase operationId, verb first', async () => {
    const ids = Object.fromEntries((await operations()).map(({ route, operation }) => [route, operation.operationId]));
    expect(ids).toEqual({
      'GET /health': 'getHealth',
      'GET /.well-known/jwks.json': 'fetchJwks',
      'POST /api/v1/auth/signup': 'signup',
      'POST /api/v1/auth/login': 'login',
      'POST /api/v1/auth/logout': 'logout',
      'GET /api/v1/auth/me': 'getCurrentIdentity',
      'GET /api/v1/users': 'listUsers',
      'POST /api/v1/users': 'createUser',
      'PATCH /api/v1/users/{id}': 'updateUser',
      'DELETE /api/v1/users/{id}': 'deleteUser',
      'GET /api/v1/api-keys': 'listApiKeys',
      'POST /api/v1/api-keys': 'createApiKey',
      'DELETE /api/v1/api-keys/{id}': 'deleteApiKey',
      'POST /api/v1/api-keys/{id}/rotate': 'rotateApiKey',
      'POST /api/v1/evaluate': 'evaluate',
      'GET /api/v1/traces': 'listTraces',
      'GET /api/v1/traces/{traceId}': 'getTrace',
      'POST /api/v1/traces/{traceId}/outcome': 'recordOutcome',
      'GET /api/v1/traces/{traceId}/verify': 'verifyTrace',
      'GET /api/v1/traces/{traceId}/export': 'exportTrace',
      'GET /api/v1/traces/export': 'exportTraces',
      'GET /api/v1/audit/export': 'exportAudit',
      'GET /api/v1/approvals': 'listApprovals',
      'GET /api/v1/approvals/count': 'countApprovals',
      'GET /api/v1/approvals/{id}': 'getApproval',
      'GET /api/v1/approvals/{id}/status': 'getApprovalStatus',
      'POST /api/v1/approvals/{id}/approve': 'approveApproval',
      'POST /api/v1/approvals/{id}/deny': 'denyApproval',
      'POST /api/v1/delegations': 'createDelegation',
      'GET /api/v1/delegations': 'listDelegations',
      'DELETE /api/v1/delegations/{id}': 'revokeDelegation',
      'POST /api/v1/grants/{jti}/redeem': 'redeemGrant',
      'POST /api/v1/settings/grant-keys/rotate': 'rotateGrantKey',
      'GET /api/v1/settings/grants': 'getGrantSettings',
      'PUT /api/v1/settings/grants': 'replaceGrantSettings',
      'GET /api/v1/agents': 'listAgents',
      'POST /api/v1/agents': 'createAgent',
      'GET /api/v1/agents/{id}': 'getAgent',
      'PATCH /api/v1/agents/{id}': 'updateAgent',
      'POST /api/v1/agents/{id}/suspend': 'suspendAgent',
      'POST /api/v1/agents/{id}/revoke': 'revokeAgent',
      'POST /api/v1/agents/{id}/reactivate': 'reactivateAgent',
      'GET /api/v1/policies': 'listPolicyRules',
      'POST /api/v1/policies': 'createPolicyRule',
      'GET /api/v1/policies/{id}': 'getPolicyRule',
      'PATCH /api/v1/policies/{id}': 'updatePolicyRule',
      'DELETE /api/v1/policies/{id}': 'deactivatePolicyRule',
      'GET /api/v1/policies/{id}/versions': 'listPolicyRuleVersions',
      'POST /api/v1/policies/test': 'testPolicyRules',
      'GET /api/v1/policies/shadow-report': 'getShadowReport',
      'POST /api/v1/policies/simulate': 'simulatePolicyChanges',
      'GET /api/v1/policies/revision': 'getPolicyRevision',
      'POST /api/v1/policies/apply': 'applyPolicyChanges',
      'POST /api/v1/webhooks': 'createWebhook',
      'GET /api/v1/webhooks': 'listWebhooks',
      'GET /api/v1/webhooks/{id}': 'getWebhook',
      'PATCH /api/v1/webhooks/{id}': 'updateWebhook',
      'DELETE /api/v1/webhooks/{id}': 'deleteWebhook',
      'GET /api/v1/webhooks/{id}/deliveries': 'listWebhookDeliveries',
      'POST /api/v1/webhooks/{id}/test': 'sendTestWebhook',
      'POST /api/v1/billing/checkout': 'startCheckout',
      'POST /api/v1/billing/portal': 'openBillingPortal',
      'GET /api/v1/billing/status': 'getSubscription',
      'POST /api/v1/billing/webhook': 'receiveBillingEvent',
      'GET /api/v1/integrations/chat': 'getChatSettings',
      'PUT /api/v1/integrations/chat': 'replaceChatSettings',
      'POST /api/v1/integrations/chat/test': 'sendTestChatMessage',
      'POST /api/v1/integrations/chat/callback': 'receiveChatCallback',
      'GET /api/v1/settings/notifications': 'getNotificationSettings',
      'PUT /api/v1/settings/notifications': 'replaceNotificationSettings',
      'POST /api/v1/email-confirmations': 'confirmEmail',
    });
    const unique = new Set(Object.values(ids));
    expect(unique.size).toBe(Object.keys(ids).length);
    for (const id of unique) expect(id).toMatch(/^[a-z]+([A-Z][a-z]*)*$/);
  });
});

describe('the committed contract', () => {
  it('is the document the service serves (run `npm run contract:write` after changing a route or schema)', async () => {
    const served = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const committed = JSON.parse(readFileSync(CONTRACT_FILE, 'utf8'));
    expect(served.servers).toEqual([{ url: t.runtime.config.publicUrl, description: 'This installation (PUBLIC_URL)' }]);
    expect(served.info.contact).toEqual({ name: 'This installation', url: t.runtime.config.publicUrl });
    const withoutInstallation = (document: Record<string, unknown>) => ({
      ...document,
      servers: null,
      info: { ...(document.info as object), contact: null },
    });
    expect(withoutInstallation(served), 'docs/openapi.json is stale: run `npm run contract:write`').toEqual(withoutInstallation(committed));
  });
});

describe('each operation', () => {
  it('says what it does, who may call it, and every status it answers', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe(
      JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')).version ?? '0.0.0',
    );
    const evaluate = document.paths['/api/v1/evaluate'].post;
    expect(evaluate.summary).toBe('Evaluate an action');
    expect(evaluate.description).toMatch(/Who may call: an API key with the `evaluate` scope \(or `admin`\)\.$/);
    expect(evaluate.security).toEqual([{ apiKey: [] }]);
    expect(evaluate['x-required-scope']).toBe('evaluate');
    expect(Object.keys(evaluate.responses)).toEqual(['200', '400', '401', '403', '404', '409', '413', '422', '429', '503', 'default']);
    const codes = (status: string) => evaluate.responses[status].content['application/json'].schema.allOf[1].properties.error.enum;
    expect(codes('409')).toEqual(['conflict']);
    expect(codes('422')).toEqual(['idempotency_key_reused']);
    expect(Object.keys(evaluate.responses['429'].headers)).toEqual([
      'X-Request-Id',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'Retry-After',
    ]);
    expect(evaluate.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false }));
    expect(evaluate.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Evaluation' });

    const health = document.paths['/health'].get;
    expect(health.security).toEqual([]);
    // A query string the service cannot read is 400 here too; nothing else but a fault.
    expect(Object.keys(health.responses)).toEqual(['200', '400', 'default']);
    const getAgent = document.paths['/api/v1/agents/{id}'].get;
    expect(Object.keys(getAgent.responses)).toEqual(['200', '400', '401', '403', '404', '429', '503', 'default']);
    expect(getAgent.security).toEqual([{ apiKey: [] }, { session: [] }]);
  });

  it('types the free-form fields as open objects', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const body = (path: string, method = 'post') => document.paths[path][method].requestBody.content['application/json'].schema.properties;
    expect(body('/api/v1/evaluate').context).toMatchObject({ type: 'object', additionalProperties: true });
    expect(body('/api/v1/traces/{traceId}/outcome').metadata).toMatchObject({ type: 'object', additionalProperties: true });
    expect(body('/api/v1/agents').credential_config.anyOf[0]).toMatchObject({ type: 'object', additionalProperties: true });
    expect(body('/api/v1/agents').metadata.anyOf[0]).toMatchObject({ type: 'object', additionalProperties: true });
    expect(body('/api/v1/policies').conditions.anyOf[0]).toMatchObject({ type: 'object', additionalProperties: true });
  });

  it('declares every webhook event with its payload and delivery headers', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    // The events, and the envelope the test action sends.
    expect(Object.keys(document.webhooks)).toEqual([...WEBHOOK_EVENTS, 'test']);
    const requested = document.webhooks['approval.requested'].post;
    expect(requested.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ApprovalRequestedWebhook' });
    expect(requested.parameters.map((p: { name: string }) => p.name)).toEqual([
      'X-Webhook-ID',
      'X-Webhook-Timestamp',
      'X-Webhook-Signature',
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
    ]);
    expect(document.components.schemas.ApprovalRequestedWebhook.properties.data.properties.approval).toEqual({
      $ref: '#/components/schemas/Approval',
    });
  });
});
