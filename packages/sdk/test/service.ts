import type { AddressInfo } from 'node:net';
import { agentBody, policyBody } from '../../../apps/api/test/fixtures.js';
import { keyWithScopes, signupTenant, type TestApp } from '../../../apps/api/test/harness.js';
import { createClient, type GovernanceClient } from '../src/index.js';

/** Listens on a real port of the loopback interface (once) and answers with its base URL. */
export async function listen(t: TestApp): Promise<string> {
  if (!t.app.server.listening) await t.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}

export interface Governed {
  /** The agent runtime's client: the key signup creates (evaluate, traces, approvals:read, policies:read). */
  runtime: GovernanceClient;
  /** An admin key's client, which also decides approvals. */
  admin: GovernanceClient;
  adminKey: string;
  runtimeKey: string;
  tenantId: string;
  agentId: string;
}

/**
 * A new tenant with an agent and one rule for `write` on `github` `repo/*` with `effect`;
 * other actions fall to the default deny.
 */
export async function governedAgent(
  t: TestApp,
  baseUrl: string,
  effect: 'allow' | 'approval_required' | 'deny',
  rule: Record<string, unknown> = {},
): Promise<Governed> {
  const tenant = await signupTenant(t.app);
  const { apiKey: adminKey } = await keyWithScopes(t.app, tenant, ['admin']);
  const admin = createClient({ baseUrl, apiKey: adminKey });
  const agent = await admin.createAgent(agentBody() as never);
  await admin.createPolicyRule(policyBody(agent.id, { policy_effect: effect, ...rule }) as never);
  return {
    runtime: createClient({ baseUrl, apiKey: tenant.runtimeKey.apiKey }),
    admin,
    adminKey,
    runtimeKey: tenant.runtimeKey.apiKey,
    tenantId: tenant.tenantId,
    agentId: agent.id,
  };
}

/** The action the agent's rule governs. */
export const writeToRepo = (agentId: string) =>
  ({
    agent_id: agentId,
    operation: 'write',
    target_integration: 'github',
    resource_scope: 'repo/app',
    data_classification: 'internal',
  }) as const;
