import type { Access } from '@agov/domain';

/**
 * The spec's endpoint-access table, one entry per row. Every route names its row in
 * `config.access`; the auth plugin enforces it and refuses to register a route without one.
 */
export const ACCESS = {
  agentsRead: { scope: 'agents:read', roles: 'any' },
  agentsWrite: { scope: 'agents:write', roles: ['admin'] },
  agentsLifecycle: { scope: 'agents:lifecycle', roles: ['admin'] },
  policiesRead: { scope: 'policies:read', roles: 'any' },
  policiesWrite: { scope: 'policies:write', roles: ['admin'] },
  approvalsRead: { scope: 'approvals:read', roles: 'any' },
  approvalsDecide: { scope: 'approvals:write', roles: ['reviewer', 'admin'] },
  // Delegating a vote is between people: no key has a vote of its own to hand on.
  delegations: { scope: null, roles: ['reviewer', 'admin'] },
  tracesRead: { scope: 'traces:read', roles: 'any' },
  tracesOutcome: { scope: 'traces:write', roles: 'any' },
  traceExport: { scope: 'traces:read', roles: ['reviewer', 'admin'] },
  bulkExport: { scope: 'admin', roles: ['reviewer', 'admin'] },
  evaluate: { scope: 'evaluate', roles: null },
  admin: { scope: 'admin', roles: ['admin'] },
  billingManage: { scope: null, roles: ['admin'] },
  anyCredential: { scope: 'any', roles: 'any' },
} as const satisfies Record<string, Access>;

/** No credential: health, signup, login, and callbacks that carry their own signature. */
export const PUBLIC = 'public' as const;

export type RouteAccess = Access | typeof PUBLIC;
