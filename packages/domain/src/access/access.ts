import { AppError } from '../support/errors.js';

export const SCOPES = [
  'evaluate',
  'agents:read',
  'agents:write',
  'agents:lifecycle',
  'policies:read',
  'policies:write',
  'traces:read',
  'traces:write',
  'approvals:read',
  'approvals:write',
  'admin',
] as const;
export type Scope = (typeof SCOPES)[number];

/** The dashboard's "agent runtime" preset; also the scopes of the key created at signup. */
export const AGENT_RUNTIME_SCOPES: readonly Scope[] = ['evaluate', 'traces:read', 'traces:write', 'approvals:read', 'policies:read'];

export const ROLES = ['admin', 'reviewer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** Who is calling, once authenticated. Every domain function acts on its tenant only. */
export type Principal =
  | { kind: 'api_key'; tenantId: string; keyId: string; keyName: string; keyPrefix: string; scopes: readonly Scope[] }
  | {
      kind: 'session';
      tenantId: string;
      role: Role;
      /** Null for the development bypass, which acts as an admin with no user record. */
      user: { id: string; name: string; email: string } | null;
      sessionId: string | null;
    };

/**
 * What a route requires, as the spec's endpoint-access table states it: the API-key scope
 * (`any` = any valid key, `null` = keys not accepted) and the session roles
 * (`any` = every role, `null` = sessions not accepted).
 */
export interface Access {
  readonly scope: Scope | 'any' | null;
  readonly roles: readonly Role[] | 'any' | null;
}

export function authorize(principal: Principal, access: Access): void {
  if (!isAllowed(principal, access)) {
    throw new AppError('forbidden', 'This credential may not perform this action', refusalDetails(principal, access));
  }
}

/**
 * What the refused caller would need, and what it has (CONTRACT, integration decisions): a
 * scope and the key's scopes, or a role and the session's role. A key on a route for sessions
 * only is told the role it would need (it has none); a session on a route for keys only, the
 * scope (it has none).
 */
function refusalDetails(principal: Principal, { scope, roles }: Access): Record<string, unknown> {
  if (principal.kind === 'api_key')
    return scope === null ? { required_role: leastRole(roles), role: null } : { required_scope: scope, scopes: principal.scopes };
  return roles === null ? { required_scope: scope, scopes: [] } : { required_role: leastRole(roles), role: principal.role };
}

/** The least of the roles a route admits: each role may do what the ones below it may. */
const leastRole = (roles: Access['roles']): Role | null =>
  roles === 'any' ? 'viewer' : (ROLES.filter((role) => roles?.includes(role)).at(-1) ?? null);

function isAllowed(principal: Principal, { scope, roles }: Access): boolean {
  if (principal.kind === 'api_key') {
    if (scope === null) return false;
    return scope === 'any' || principal.scopes.includes('admin') || principal.scopes.includes(scope);
  }
  if (roles === null) return false;
  return roles === 'any' || roles.includes(principal.role);
}

/** A short name for `modified_by` when the caller gives none. */
export function actorName(principal: Principal): string {
  if (principal.kind === 'api_key') return `api_key:${principal.keyName}`;
  return principal.user?.name ?? 'development';
}

/**
 * Who decided, as the audit trail names them (CONTRACT, trust decisions): what the service
 * authenticated, never what the caller typed. A user by name and e-mail, a key by its name
 * and the prefix that tells it apart from a key of the same name.
 */
export function deciderName(principal: Principal): string {
  if (principal.kind === 'api_key') return `api-key:${principal.keyName} (${principal.keyPrefix})`;
  return principal.user ? `${principal.user.name} <${principal.user.email}>` : 'development';
}

/**
 * The authenticated identity behind a change, recorded beside client-written names such as
 * `created_by` so that separation of duties compares what the service knows, not what it was told.
 */
export function identityOf(principal: Principal): string {
  if (principal.kind === 'api_key') return `api_key:${principal.keyId}`;
  return principal.user ? userIdentity(principal.user.id) : 'development';
}

export const userIdentity = (userId: string) => `user:${userId}`;
