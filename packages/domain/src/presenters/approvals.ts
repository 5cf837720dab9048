import type { AgentRow, ApprovalRow, TraceRow } from '@agov/db';
import { iso, isoOrNull } from './time.js';
import { presentTraceListItem } from './traces.js';

export const presentApproval = (approval: ApprovalRow) => ({
  id: approval.id,
  trace_id: approval.traceId,
  agent_id: approval.agentId,
  requested_operation: approval.requestedOperation,
  target_integration: approval.targetIntegration,
  resource_scope: approval.resourceScope,
  data_classification: approval.dataClassification,
  risk_classification: approval.riskClassification,
  authority_model: approval.authorityModel,
  delegated_from: approval.delegatedFrom,
  policy_effect: approval.policyEffect,
  flag_reason: approval.flagReason,
  status: approval.status,
  context_snapshot: approval.contextSnapshot,
  action_digest: approval.actionDigest,
  expires_at: iso(approval.expiresAt),
  requested_at: iso(approval.requestedAt),
  decided_at: isoOrNull(approval.decidedAt),
  approver_name: approval.approverName,
  decision_note: approval.decisionNote,
});

/** The lightweight poll: where the request stands, who decided it, and which action it is for. */
export const presentApprovalStatus = (approval: ApprovalRow) => ({
  id: approval.id,
  status: approval.status,
  decided_at: isoOrNull(approval.decidedAt),
  approver_name: approval.approverName,
  decision_note: approval.decisionNote,
  action_digest: approval.actionDigest,
});

/**
 * The detail view: the request, a summary of the agent that asked (no configuration, which
 * an approvals reader may not see), and the trace as the trace list shows it.
 */
export const presentApprovalDetail = ({
  approval,
  agent,
  trace,
}: {
  approval: ApprovalRow;
  agent: AgentRow | null;
  trace: TraceRow | null;
}) => ({
  ...presentApproval(approval),
  agent: agent && {
    id: agent.id,
    name: agent.name,
    description: agent.description,
    owner_name: agent.ownerName,
    team: agent.team,
    environment: agent.environment,
    authority_model: agent.authorityModel,
    autonomy_tier: agent.autonomyTier,
    lifecycle_state: agent.lifecycleState,
  },
  trace: trace && presentTraceListItem(trace),
});
