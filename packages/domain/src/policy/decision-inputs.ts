import { LRUCache } from 'lru-cache';
import type { agents, policyRules } from '@agov/db';

export type AgentRow = typeof agents.$inferSelect;
export type PolicyRuleRow = typeof policyRules.$inferSelect;

/** What deciding on an agent's action needs: the agent and its active rules in evaluation order. */
export interface DecisionInputs {
  agent: AgentRow;
  rules: PolicyRuleRow[];
}

/**
 * Evaluate and the dry run read an agent and its rules on every call; this keeps them in
 * memory. Every change to an agent or its rules invalidates its entry (see invalidation.ts);
 * the TTL bounds staleness should a notification ever be missed.
 */
export class DecisionInputsCache {
  private readonly byAgent = new LRUCache<string, DecisionInputs>({ max: 20_000, ttl: 30_000 });

  get(agentId: string): DecisionInputs | undefined {
    return this.byAgent.get(agentId);
  }

  set(agentId: string, inputs: DecisionInputs): void {
    this.byAgent.set(agentId, inputs);
  }

  evict(agentId: string): void {
    this.byAgent.delete(agentId);
  }
}
