import { and, inArray } from 'drizzle-orm';
import { agents, type AgentRow } from '@agov/db';
import { actorName, type Principal } from '../access/access.js';
import type { CoreDeps } from '../caches/caches.js';
import { AppError, notFound } from '../support/errors.js';
import { transactionInvalidating } from '../caches/invalidation.js';
import type { Effect } from '../outbox/effects.js';
import { recordEffects } from '../outbox/record.js';
import { presentAgent } from '../presenters/agents.js';
import { agentInTenant } from './agents.js';
import type { LifecycleState } from './vocabulary.js';

interface Transition {
  from: readonly LifecycleState[];
  to: LifecycleState;
  event: 'agent.suspended' | 'agent.revoked' | null;
  /** Why a move from any other state is refused, after "agent is <state>; ". */
  refusal: (current: LifecycleState) => string;
}

/**
 * The agent lifecycle state machine. Revocation is permanent: nothing leaves `revoked`.
 * Each move is one conditional UPDATE, so two concurrent moves cannot both start from the
 * same state.
 */
export const AGENT_TRANSITIONS = {
  suspend: {
    from: ['active'],
    to: 'suspended',
    event: 'agent.suspended',
    refusal: (current) => (current === 'revoked' ? 'revoked agents cannot be suspended' : 'only active agents can be suspended'),
  },
  revoke: {
    from: ['active', 'suspended'],
    to: 'revoked',
    event: 'agent.revoked',
    refusal: () => 'revoked agents cannot be revoked again',
  },
  reactivate: {
    from: ['suspended'],
    to: 'active',
    event: null,
    refusal: (current) => (current === 'revoked' ? 'revoked agents cannot be reactivated' : 'only suspended agents can be reactivated'),
  },
} as const satisfies Record<string, Transition>;

export type LifecycleAction = keyof typeof AGENT_TRANSITIONS;

export async function moveAgent(deps: CoreDeps, principal: Principal, id: string, action: LifecycleAction): Promise<AgentRow> {
  const transition: Transition = AGENT_TRANSITIONS[action];
  const now = deps.clock.now();
  return transactionInvalidating(deps, async (tx, invalidate) => {
    const [row] = await tx
      .update(agents)
      .set({ lifecycleState: transition.to, modifiedAt: now, modifiedBy: actorName(principal) })
      .where(and(agentInTenant(principal, id), inArray(agents.lifecycleState, [...transition.from])))
      .returning();
    if (!row) {
      const [current] = await tx.select({ state: agents.lifecycleState }).from(agents).where(agentInTenant(principal, id));
      if (!current) throw notFound('Agent');
      throw new AppError('conflict', `agent is ${current.state}; ${transition.refusal(current.state)}`, {
        lifecycle_state: current.state,
      });
    }
    const effects: Effect[] = transition.event ? [{ kind: 'webhook', event: transition.event, data: { agent: presentAgent(row) } }] : [];
    await recordEffects(tx, principal.tenantId, effects, now);
    invalidate({ kind: 'agent', id });
    return row;
  });
}
