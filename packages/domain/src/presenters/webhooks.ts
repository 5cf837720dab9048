import { iso, isoOrNull } from './time.js';
import type { WebhookDeliveryRow, WebhookEndpointRow } from '@agov/db';

/** The endpoint as every response but create shows it: never the secret. */
export const presentWebhookEndpoint = (endpoint: WebhookEndpointRow) => ({
  id: endpoint.id,
  url: endpoint.url,
  events: endpoint.events,
  is_active: endpoint.isActive,
  description: endpoint.description,
  created_at: iso(endpoint.createdAt),
});

/** The create response: the one time the signing secret is shown. */
export const presentCreatedWebhookEndpoint = (endpoint: WebhookEndpointRow) => ({
  ...presentWebhookEndpoint(endpoint),
  secret: endpoint.secret,
});

export const presentWebhookDelivery = (delivery: WebhookDeliveryRow) => ({
  id: delivery.id,
  event_type: delivery.eventType,
  status: delivery.status,
  http_status: delivery.httpStatus,
  attempts: delivery.attempts,
  created_at: iso(delivery.createdAt),
  delivered_at: isoOrNull(delivery.deliveredAt),
  next_retry_at: isoOrNull(delivery.nextRetryAt),
});

/** Flat, as the spec shows it; `error` appears only when the test was not delivered. */
export const presentWebhookTestResult = (result: {
  delivered: boolean;
  httpStatus: number | null;
  responseTimeMs: number;
  error: string | null;
}) => ({
  delivered: result.delivered,
  http_status: result.httpStatus,
  response_time_ms: Math.round(result.responseTimeMs),
  ...(result.error === null ? {} : { error: result.error }),
});
