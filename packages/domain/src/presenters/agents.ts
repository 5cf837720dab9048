import type { AgentRow, ApprovalRow, PolicyRuleRow, TraceRow } from '@agov/db';
import { iso, isoOrNull } from './time.js';

export const presentAgent = (agent: AgentRow) => ({
  id: agent.id,
  name: agent.name,
  description: agent.description,
  owner_name: agent.ownerName,
  owner_role: agent.ownerRole,
  team: agent.team,
  environment: agent.environment,
  authority_model: agent.authorityModel,
  identity_mode: agent.identityMode,
  delegation_model: agent.delegationModel,
  autonomy_tier: agent.autonomyTier,
  authorized_integrations: agent.authorizedIntegrations.map((integration) => ({
    name: integration.name,
    resource_scope: integration.resource_scope,
    data_classification: integration.data_classification,
    allowed_operations: integration.allowed_operations,
  })),
  credential_config: agent.credentialConfig ?? null,
  metadata: agent.metadata ?? null,
  next_review_date: agent.nextReviewDate,
  created_by: agent.createdBy,
  modified_by: agent.modifiedBy,
  modified_at: iso(agent.modifiedAt),
  lifecycle_state: agent.lifecycleState,
  max_requests_per_minute: agent.maxRequestsPerMinute,
  max_identical_requests_per_minute: agent.maxIdenticalRequestsPerMinute,
  throttle_effect: agent.throttleEffect,
  created_at: iso(agent.createdAt),
});

/**
 * What the detail view reads: the agent and its statistics (agents/stats.ts gathers them), and
 * its budgets' use (history/budgets.ts), shown among the statistics.
 */
export interface AgentDetailInput {
  agent: AgentRow;
  budgets: readonly { budget: BudgetInput; used: number | null }[];
  stats: {
    recentTraces: readonly {
      id: string;
      requestedOperation: string;
      targetIntegration: string;
      resourceScope: string;
      finalOutcome: string;
      startedAt: Date;
      completedAt: Date | null;
    }[];
    approvalCounts: Record<ApprovalRow['status'], number>;
    decisionsLast24h: Record<TraceRow['decision'], number>;
    traceCount: number;
  };
}

/** The detail view: the agent and its statistics under `stats`. */
export const presentAgentDetail = ({ agent, stats, budgets }: AgentDetailInput) => ({
  ...presentAgent(agent),
  stats: {
    recent_traces: stats.recentTraces.map((trace) => ({
      id: trace.id,
      requested_operation: trace.requestedOperation,
      target_integration: trace.targetIntegration,
      resource_scope: trace.resourceScope,
      final_outcome: trace.finalOutcome,
      started_at: iso(trace.startedAt),
      completed_at: isoOrNull(trace.completedAt),
    })),
    approval_counts: stats.approvalCounts,
    decisions_last_24h: stats.decisionsLast24h,
    trace_count: stats.traceCount,
    budgets: budgets.map(presentBudgetUse),
  },
});

/** What presenting a budget reads of it (history/budgets.ts's `Budget`). */
export interface BudgetInput {
  rule: Pick<PolicyRuleRow, 'id' | 'policyName'>;
  expression: Record<string, unknown>;
  limit: number;
}

/** A budget as the agent detail and `budget.threshold` show it: the rule that sets it and the history operator it limits. */
export const presentBudget = ({ rule, expression }: BudgetInput) => ({ policy_rule_id: rule.id, policy_name: rule.policyName, expression });

/** An entry of the agent detail's `stats.budgets`: the budget, its use now (null while the counters cannot answer) and its limit. */
export const presentBudgetUse = ({ budget, used }: { budget: BudgetInput; used: number | null }) => ({
  ...presentBudget(budget),
  used,
  limit: budget.limit,
});

/** `budget.threshold`'s data (CONTRACT, "Approval decisions"): `threshold` is the percentage of the limit reached. */
export const presentBudgetCrossing = (
  agent: AgentRow,
  { budget, used, threshold }: { budget: BudgetInput; used: number; threshold: number },
) => ({
  agent: presentAgent(agent),
  budget: presentBudget(budget),
  used,
  limit: budget.limit,
  threshold,
});
