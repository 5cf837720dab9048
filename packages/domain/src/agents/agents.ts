import { and, desc, eq, type SQL } from 'drizzle-orm';
import { agents, type AuthorizedIntegration, type AgentRow } from '@agov/db';
import { actorName, identityOf, type Principal } from '../access/access.js';
import type { CoreDeps } from '../caches/caches.js';
import { notFound } from '../support/errors.js';
import { transactionInvalidating } from '../caches/invalidation.js';
import { pageOf, type Page, type Paged } from '../support/pagination.js';
import { textSearch } from './search.js';
import type { AgentEnvironment, AuthorityModel, AutonomyTier, DelegationModel, IdentityMode, LifecycleState } from './vocabulary.js';

/** The create body: every agent field except the server-owned ones. */
export interface AgentInput {
  name: string;
  description: string;
  owner_name: string;
  owner_role: string;
  team: string;
  environment: AgentEnvironment;
  authority_model: AuthorityModel;
  identity_mode: IdentityMode;
  delegation_model: DelegationModel;
  autonomy_tier: AutonomyTier;
  authorized_integrations: AuthorizedIntegration[];
  credential_config: Record<string, unknown> | null;
  metadata: Record<string, unknown> | null;
  next_review_date: string;
  created_by: string;
  modified_by: string;
  modified_at: string;
  /** The throttle (evaluation/throttle.ts); left out on create: no limits, `deny`. */
  max_requests_per_minute?: number | null;
  max_identical_requests_per_minute?: number | null;
  throttle_effect?: AgentRow['throttleEffect'];
}

export type AgentPatch = Partial<AgentInput>;

export interface AgentFilters {
  environment?: AgentEnvironment;
  lifecycle_state?: LifecycleState;
  authority_model?: AuthorityModel;
  autonomy_tier?: AutonomyTier;
  search?: string;
}

type AgentColumns = Omit<typeof agents.$inferInsert, 'id' | 'tenantId' | 'lifecycleState' | 'createdAt' | 'createdByIdentity'>;

function toColumns(input: AgentInput): AgentColumns;
function toColumns(input: AgentPatch): Partial<AgentColumns>;
function toColumns(input: AgentPatch): Partial<AgentColumns> {
  return {
    name: input.name,
    description: input.description,
    ownerName: input.owner_name,
    ownerRole: input.owner_role,
    team: input.team,
    environment: input.environment,
    authorityModel: input.authority_model,
    identityMode: input.identity_mode,
    delegationModel: input.delegation_model,
    autonomyTier: input.autonomy_tier,
    authorizedIntegrations: input.authorized_integrations,
    credentialConfig: input.credential_config,
    metadata: input.metadata,
    nextReviewDate: input.next_review_date,
    createdBy: input.created_by,
    modifiedBy: input.modified_by,
    modifiedAt: input.modified_at === undefined ? undefined : new Date(input.modified_at),
    maxRequestsPerMinute: input.max_requests_per_minute,
    maxIdenticalRequestsPerMinute: input.max_identical_requests_per_minute,
    throttleEffect: input.throttle_effect,
  };
}

export const agentInTenant = (principal: Principal, id: string): SQL => and(eq(agents.id, id), eq(agents.tenantId, principal.tenantId))!;

/** Records who created the agent as authenticated, beside the `created_by` the caller wrote (separation of duties). */
export async function createAgent(deps: CoreDeps, principal: Principal, input: AgentInput): Promise<AgentRow> {
  const [row] = await deps.database.db
    .insert(agents)
    .values({ ...toColumns(input), tenantId: principal.tenantId, createdByIdentity: identityOf(principal), createdAt: deps.clock.now() })
    .returning();
  return row!;
}

export async function listAgents(deps: CoreDeps, principal: Principal, filters: AgentFilters, page: Page): Promise<Paged<AgentRow>> {
  const { db } = deps.database;
  const where = and(
    eq(agents.tenantId, principal.tenantId),
    filters.environment === undefined ? undefined : eq(agents.environment, filters.environment),
    filters.lifecycle_state === undefined ? undefined : eq(agents.lifecycleState, filters.lifecycle_state),
    filters.authority_model === undefined ? undefined : eq(agents.authorityModel, filters.authority_model),
    filters.autonomy_tier === undefined ? undefined : eq(agents.autonomyTier, filters.autonomy_tier),
    textSearch(filters.search, [agents.name, agents.description]),
  );
  return pageOf(db, agents, where, [desc(agents.createdAt), desc(agents.id)], page);
}

export async function getAgent(deps: CoreDeps, principal: Principal, id: string): Promise<AgentRow> {
  const [row] = await deps.database.db.select().from(agents).where(agentInTenant(principal, id));
  if (!row) throw notFound('Agent');
  return row;
}

/**
 * Changes only the given fields. `modified_at` and `modified_by` say who last changed the
 * profile: when the caller does not state them, they become now and the caller.
 */
export async function updateAgent(deps: CoreDeps, principal: Principal, id: string, patch: AgentPatch): Promise<AgentRow> {
  const columns = toColumns(patch);
  columns.modifiedAt ??= deps.clock.now();
  columns.modifiedBy ??= actorName(principal);
  return transactionInvalidating(deps, async (tx, invalidate) => {
    const [row] = await tx.update(agents).set(columns).where(agentInTenant(principal, id)).returning();
    if (!row) throw notFound('Agent');
    invalidate({ kind: 'agent', id });
    return row;
  });
}
