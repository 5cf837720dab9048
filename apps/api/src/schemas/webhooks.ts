import { Type } from '@sinclair/typebox';
import { WEBHOOK_DELIVERY_STATUSES, WEBHOOK_EVENTS } from '@agov/domain';
import { Body, NullableTimestamp, PageQuery, PatchBody, StringEnum, Timestamp } from './common.js';

// Which URLs may receive webhooks is the domain's rule (webhooks/targets.ts); here only the size.
const WebhookUrl = Type.String({ minLength: 1, maxLength: 2048 });
const EventName = StringEnum(WEBHOOK_EVENTS);
const Events = Type.Array(EventName, { minItems: 1, maxItems: WEBHOOK_EVENTS.length, uniqueItems: true });
const Description = Type.String({ maxLength: 500 });
const DeliveryStatus = StringEnum(WEBHOOK_DELIVERY_STATUSES);

export const CreateWebhookBody = Body({ url: WebhookUrl, events: Events, description: Type.Optional(Description) });

export const UpdateWebhookBody = PatchBody({
  url: WebhookUrl,
  events: Events,
  is_active: Type.Boolean(),
  description: Type.Union([Description, Type.Null()]),
});

export const DeliveryListQuery = Type.Object({ status: Type.Optional(DeliveryStatus), limit: PageQuery.limit });

const endpointFields = {
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  is_active: Type.Boolean(),
  description: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
};
export const WebhookEndpoint = Type.Object(endpointFields, { title: 'Webhook' });
// The spec's field order, with the secret after events.
export const CreatedWebhookEndpoint = Type.Object(
  {
    id: endpointFields.id,
    url: endpointFields.url,
    events: endpointFields.events,
    secret: Type.String(),
    is_active: endpointFields.is_active,
    description: endpointFields.description,
    created_at: endpointFields.created_at,
  },
  { title: 'CreatedWebhook' },
);

export const WebhookDelivery = Type.Object(
  {
    id: Type.String(),
    event_type: Type.String(),
    status: DeliveryStatus,
    http_status: Type.Union([Type.Integer(), Type.Null()]),
    attempts: Type.Integer(),
    created_at: Timestamp,
    delivered_at: NullableTimestamp,
    next_retry_at: NullableTimestamp,
  },
  { title: 'WebhookDelivery' },
);

export const WebhookTestResult = Type.Object(
  {
    delivered: Type.Boolean(),
    http_status: Type.Union([Type.Integer(), Type.Null()]),
    response_time_ms: Type.Integer(),
    error: Type.Optional(Type.String()),
  },
  { title: 'WebhookTestResult' },
);
