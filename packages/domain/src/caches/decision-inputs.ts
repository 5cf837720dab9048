import type { AgentRow, PolicyRuleRow } from '@agov/db';
import { InvalidatedCache } from './invalidated-cache.js';

/** What deciding on an agent's action needs: the agent, its API shape, and its active rules in evaluation order. */
export interface DecisionInputs {
  agent: AgentRow;
  /** The agent as the API shows it: JSON Logic conditions see this as `agent`. */
  agentView: Record<string, unknown>;
  /** The rules that decide: active, in `enforce` mode. */
  rules: PolicyRuleRow[];
  /** Active rules in `shadow` mode, which never decide; usually none, and then evaluate does no more work. */
  shadowRules: PolicyRuleRow[];
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
