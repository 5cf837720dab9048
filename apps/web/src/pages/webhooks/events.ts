import type { paths } from '@agov/sdk';

export type WebhookEvent = paths['/api/v1/webhooks']['post']['requestBody']['content']['application/json']['events'][number];

export const EVENTS: readonly WebhookEvent[] = [
  'approval.requested',
  'approval.approved',
  'approval.denied',
  'approval.expired',
  'trace.completed',
  'agent.suspended',
  'agent.revoked',
  'policy.updated',
  'audit.event',
  'audit.batch',
  'approval.escalated',
  'budget.threshold',
];
