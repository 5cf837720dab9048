import { AUDIT_EXPORT_COLUMNS, WEBHOOK_EVENTS } from '@agov/domain';

/** The events subscribers receive, and the envelope the test action sends one endpoint on request. */
const DOCUMENTED_EVENTS = [...WEBHOOK_EVENTS, 'test'] as const;
type DocumentedEvent = (typeof DOCUMENTED_EVENTS)[number];

type Json = Record<string, unknown>;
const text = { type: 'string' };
const uuid = { type: 'string', format: 'uuid' };
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const object = (properties: Record<string, Json>) => ({ type: 'object', required: Object.keys(properties), properties });

/** Each event's `data`, as the domain's effects build it (evaluate, decisions, lifecycle, rule store, outcome, audit fan-out and batch). */
const DATA: Record<DocumentedEvent, { summary: string; data: Json }> = {
  'approval.requested': { summary: 'An evaluation needs a person to approve it.', data: object({ approval: ref('Approval') }) },
  'approval.approved': { summary: 'An approval request was approved.', data: object({ approval: ref('Approval') }) },
  'approval.denied': { summary: 'An approval request was denied.', data: object({ approval: ref('Approval') }) },
  'approval.expired': { summary: 'An approval request expired undecided.', data: object({ approval: ref('Approval') }) },
  'approval.escalated': {
    summary:
      "An approval request was still pending at its `escalate_at` (its rule's `escalate_after_seconds`): the escalation recipients were told. Sent once per request.",
    data: object({ approval: ref('Approval') }),
  },
  'budget.threshold': {
    summary:
      "An evaluation took one of the agent's budgets (a rule's limit on a history operator) to 80 or 100 % of its limit (`threshold`), from below. Sent again only after the window's sliding has taken it back under.",
    data: object({
      agent: ref('Agent'),
      budget: object({ policy_rule_id: uuid, policy_name: text, expression: { type: 'object', additionalProperties: true } }),
      used: { type: 'number' },
      limit: { type: 'number' },
      threshold: { type: 'integer', enum: [80, 100] },
    }),
  },
  'trace.completed': {
    summary: 'An outcome was recorded: the trace is complete.',
    data: object({
      trace: object({
        id: { type: 'string', format: 'uuid' },
        agent_id: { type: 'string', format: 'uuid' },
        agent_name: { type: 'string' },
        operation: { type: 'string' },
        final_outcome: { type: 'string' },
      }),
    }),
  },
  'agent.suspended': { summary: 'An agent was suspended.', data: object({ agent: ref('Agent') }) },
  'agent.revoked': { summary: 'An agent was revoked.', data: object({ agent: ref('Agent') }) },
  'policy.updated': {
    summary: 'A policy rule was created, changed or deactivated.',
    data: object({ policy: ref('PolicyRule'), change: { type: 'string', enum: ['created', 'updated', 'deleted'] } }),
  },
  'audit.event': {
    summary: 'An audit event was recorded: one webhook per event, as a row of the audit export.',
    data: object({ event: ref('AuditEvent') }),
  },
  'audit.batch': {
    summary: 'Audit events were recorded since the last batch: how many, between which instants.',
    data: object({
      from: { type: 'string', format: 'date-time' },
      to: { type: 'string', format: 'date-time' },
      event_count: { type: 'integer' },
    }),
  },
  test: {
    summary:
      'Sent to one endpoint, active or not, when an admin asks (`sendTestWebhook`); no delivery is recorded and it is never retried.',
    data: object({ message: { type: 'string' } }),
  },
};

/** A row of the audit export, and the data of an `audit.event` webhook: named `AuditEvent`. */
export const AUDIT_EVENT = {
  type: 'object',
  required: [...AUDIT_EXPORT_COLUMNS],
  properties: {
    event_id: uuid,
    trace_id: uuid,
    agent_id: uuid,
    event_type: text,
    actor_type: text,
    actor_name: text,
    description: text,
    status: text,
    timestamp: { type: 'string', format: 'date-time' },
    policy_version: { type: ['integer', 'null'] },
    integrity_hash: { type: ['string', 'null'] },
  } satisfies Record<(typeof AUDIT_EXPORT_COLUMNS)[number], Json>,
};

const name = (event: string) => `${event.replace(/(^|[._])(\w)/g, (_m, _s, c: string) => c.toUpperCase())}Webhook`;

/** The envelope of one event, named `<Event>Webhook` (e.g. `ApprovalRequestedWebhook`). */
export const WEBHOOK_SCHEMAS: Record<string, Json> = Object.fromEntries(
  DOCUMENTED_EVENTS.map((event) => [
    name(event),
    {
      type: 'object',
      required: ['id', 'event', 'timestamp', 'tenant_id', 'data'],
      properties: {
        id: { type: 'string', format: 'uuid', description: 'The delivery id, also in `X-Webhook-ID` and `webhook-id`.' },
        event: { type: 'string', enum: [event] },
        timestamp: { type: 'string', format: 'date-time' },
        tenant_id: { type: 'string', format: 'uuid' },
        data: DATA[event].data,
      },
    },
  ]),
);

const DELIVERY_HEADERS = {
  'X-Webhook-ID': { description: 'The delivery id.', required: true, schema: { type: 'string' } },
  'X-Webhook-Timestamp': { description: 'When the attempt was signed (ISO 8601).', required: true, schema: { type: 'string' } },
  'X-Webhook-Signature': {
    description: '`sha256=` + hex HMAC-SHA256 of the raw body with the endpoint secret.',
    required: true,
    schema: { type: 'string' },
  },
  'webhook-id': { description: 'Standard Webhooks: the delivery id.', required: true, schema: { type: 'string' } },
  'webhook-timestamp': { description: 'Standard Webhooks: Unix seconds.', required: true, schema: { type: 'string' } },
  'webhook-signature': {
    description: 'Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` with the endpoint secret.',
    required: true,
    schema: { type: 'string' },
  },
};

/** What the service POSTs to subscribed endpoints, one entry per event; a 2xx answer ends the delivery, anything else is retried. */
export const WEBHOOKS = Object.fromEntries(
  DOCUMENTED_EVENTS.map((event) => [
    event,
    {
      post: {
        operationId: `on${name(event).replace(/Webhook$/, '')}`,
        summary: event,
        description: `${DATA[event].summary}${event === 'test' ? '' : ` Sent to each active endpoint subscribed to \`${event}\`.`} Signed both ways (see the headers).`,
        tags: ['webhooks'],
        parameters: Object.entries(DELIVERY_HEADERS).map(([header, spec]) => ({ name: header, in: 'header', ...spec })),
        requestBody: { required: true, content: { 'application/json': { schema: ref(name(event)) } } },
        responses: { '200': { description: 'Received (any 2xx ends the delivery; anything else is retried).' } },
        security: [],
      },
    },
  ]),
);
