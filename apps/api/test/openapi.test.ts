import { describe, expect, it } from 'vitest';
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
