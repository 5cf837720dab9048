import type { AgentRow, ApprovalRow, TraceRow } from '@agov/db';
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

/** What the detail view reads: the agent and its statistics (agents/stats.ts gathers them). */
export interface AgentDetailInput {
  agent: AgentRow;
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
export const presentAgentDetail = ({ agent, stats }: AgentDetailInput) => ({
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
  },
});
