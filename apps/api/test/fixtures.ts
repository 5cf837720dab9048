import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { request, type Credential } from './harness.js';

/** A complete, valid agent create body; tests override what they care about. */
export function agentBody(overrides: Record<string, unknown> = {}) {
  return {
    name: 'invoice-bot',
    description: 'Reconciles supplier invoices',
    owner_name: 'Olivia Owner',
    owner_role: 'Finance lead',
    team: 'finance',
    environment: 'dev',
    authority_model: 'delegated',
    identity_mode: 'service_identity',
    delegation_model: 'on_behalf_of_owner',
    autonomy_tier: 'medium',
    authorized_integrations: [
      { name: 'github', resource_scope: 'repo/*', data_classification: 'internal', allowed_operations: ['read', 'write'] },
    ],
    credential_config: null,
    metadata: { cost_center: 'F-100' },
    next_review_date: '2027-01-31',
    created_by: 'olivia@example.test',
    modified_by: 'olivia@example.test',
    modified_at: '2026-11-01T09:00:00.000Z',
    ...overrides,
  };
}

/** A complete, valid policy create body for `agentId`. */
export function policyBody(agentId: string, overrides: Record<string, unknown> = {}) {
  return {
    agent_id: agentId,
    policy_name: 'Allow repository writes',
    target_integration: 'github',
    operation: 'write',
    resource_scope: 'repo/*',
    data_classification: 'internal',
    policy_effect: 'allow',
    rationale: 'Routine repository maintenance is allowed.',
    priority: 10,
    conditions: null,
    max_session_ttl: null,
    modified_by: 'olivia@example.test',
    modified_at: '2026-11-01T09:00:00.000Z',
    ...overrides,
  };
}

export async function createAgent(app: FastifyInstance, credential: Credential, overrides: Record<string, unknown> = {}) {
  const response = await request(app, credential, { method: 'POST', url: '/api/v1/agents', payload: agentBody(overrides) });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().data as { id: string; name: string } & Record<string, unknown>;
}

export async function createPolicy(app: FastifyInstance, credential: Credential, agentId: string, overrides: Record<string, unknown> = {}) {
  const response = await request(app, credential, { method: 'POST', url: '/api/v1/policies', payload: policyBody(agentId, overrides) });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().data as { id: string; policy_version: number } & Record<string, unknown>;
}

/** The action an evaluate or dry-run call asks about. */
export function action(agentId: string, overrides: Record<string, unknown> = {}) {
  return {
    agent_id: agentId,
    operation: 'write',
    target_integration: 'github',
    resource_scope: 'repo/app',
    data_classification: 'internal',
    ...overrides,
  };
}
