import type { AgentRow, PolicyRuleRow } from '@agov/db';
import { InvalidatedCache } from './invalidated-cache.js';

/** What deciding on an agent's action needs: the agent, its API shape, and its active rules in evaluation order. */
export interface DecisionInputs {
  agent: AgentRow;
  /** The agent as the API shows it: JSON Logic conditions see this as `agent`. */
  agentView: Record<string, unknown>;
  rules: PolicyRuleRow[];
}

/**
 * Evaluate and the dry run read an agent and its rules on every call; this keeps them in
 * memory. Every change to an agent or its rules evicts its entry in every process (see
 * invalidation.ts); the TTL bounds staleness should a notification ever be missed.
 */
export class DecisionInputsCache extends InvalidatedCache<DecisionInputs> {
  constructor() {
    super({ max: 20_000, ttlMs: 30_000 });
  }
}
