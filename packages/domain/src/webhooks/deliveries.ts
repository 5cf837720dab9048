import { randomUUID } from 'node:crypto';
import { and, desc, eq } from 'drizzle-orm';
import { webhookDeliveries, type WebhookDeliveryRow } from '@agov/db';
import type { Principal } from '../access/access.js';
import type { WebhookDeps } from './deps.js';
import { AppError } from '../support/errors.js';
import { getWebhookEndpoint, webhookSigningSecret } from './endpoints.js';
import { deliveryHeaders } from './signing.js';
import { assertWebhookTarget } from './targets.js';

export const WEBHOOK_DELIVERY_STATUSES = webhookDeliveries.status.enumValues;
export type WebhookDeliveryStatus = WebhookDeliveryRow['status'];

export interface WebhookDeliveryFilters {
  status?: WebhookDeliveryStatus;
  limit: number;
}

/** An endpoint's most recent deliveries, newest first; 404 when the endpoint is not the tenant's. */
export async function listWebhookDeliveries(
  deps: WebhookDeps,
  principal: Principal,
  endpointId: string,
  filters: WebhookDeliveryFilters,
): Promise<WebhookDeliveryRow[]> {
  await getWebhookEndpoint(deps, principal, endpointId);
  return deps.database.db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.endpointId, endpointId),
        eq(webhookDeliveries.tenantId, principal.tenantId),
        filters.status === undefined ? undefined : eq(webhookDeliveries.status, filters.status),
      ),
    )
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(filters.limit);
}

export const TEST_EVENT_MESSAGE = 'Test event from Agent Governance';

/** What one test send came to; `error` is null exactly when it was delivered. */
export interface WebhookTestResult {
  delivered: boolean;
  httpStatus: number | null;
  responseTimeMs: number;
  error: string | null;
}

/**
 * Sends one signed `test` envelope to the endpoint now and reports what happened. It records
 * no delivery and never retries: it answers an admin's question, it is not an event. It is
 * sent even to an inactive endpoint, since an admin asked for it explicitly. The stored URL
 * is checked again first, because the rules (or the mode) may have changed since it was saved.
 */
export async function sendTestWebhook(deps: WebhookDeps, principal: Principal, endpointId: string): Promise<WebhookTestResult> {
  const endpoint = await getWebhookEndpoint(deps, principal, endpointId);
  const refusal = await targetRefusal(deps, endpoint.url);
  if (refusal !== null) return { delivered: false, httpStatus: null, responseTimeMs: 0, error: refusal };

  const now = deps.clock.now();
  const body = JSON.stringify({
    id: randomUUID(),
    event: 'test',
    timestamp: now.toISOString(),
    tenant_id: principal.tenantId,
    data: { message: TEST_EVENT_MESSAGE },
  });
  const result = await deps.webhooks.transport.post({
    url: endpoint.url,
    body,
    headers: deliveryHeaders(webhookSigningSecret(deps, endpoint), randomUUID(), body, now),
    timeoutMs: deps.webhooks.timeoutMs,
  });
  return {
    delivered: result.ok,
    httpStatus: result.status ?? null,
    responseTimeMs: result.durationMs,
    error: result.ok ? null : result.error,
  };
}

/** Why the URL may not receive webhooks now, or null when it may. */
async function targetRefusal(deps: WebhookDeps, url: string): Promise<string | null> {
  try {
    await assertWebhookTarget(url, deps.webhookTargets);
    return null;
  } catch (error) {
    if (error instanceof AppError && error.code === 'validation_error') return error.message;
    throw error;
  }
}
