import type { AgentRow, ApprovalRow, ApprovalVote, ExecutionGrantRow, TraceRow, UserRow, VoteDelegationRow } from '@agov/db';
import { iso, isoOrNull } from './time.js';
import { presentTraceListItem } from './traces.js';

/**
 * The request as lists and `approval.*` webhooks show it. Never with its grant: a grant is a
 * bearer credential for one action, so it is shown only to a caller who asks for that one
 * request (detail, status poll), not copied to every list reader and webhook receiver.
 */
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
  escalate_at: isoOrNull(approval.escalateAt),
  escalated_at: isoOrNull(approval.escalatedAt),
  requested_at: iso(approval.requestedAt),
  decided_at: isoOrNull(approval.decidedAt),
  approver_name: approval.approverName,
  decision_note: approval.decisionNote,
  approvals_required: approval.approvalsRequired,
  votes: approval.votes.map(presentVote),
});

/** A vote as the trail names its caster; who it counts as stays internal. */
const presentVote = (vote: ApprovalVote) => ({
  decision: vote.decision,
  principal: vote.principal,
  on_behalf_of: vote.on_behalf_of,
  approver_name: vote.approver_name,
  decision_note: vote.decision_note,
  at: vote.at,
});

/** The lightweight poll: where the request stands, who decided it, which action it is for, and its grant once approved. */
export const presentApprovalStatus = ({ approval, grant }: { approval: ApprovalRow; grant: ExecutionGrantRow | null }) => ({
  id: approval.id,
  status: approval.status,
  decided_at: isoOrNull(approval.decidedAt),
  approver_name: approval.approverName,
  decision_note: approval.decisionNote,
  action_digest: approval.actionDigest,
  grant: grant?.token ?? null,
});

/**
 * The detail view: the request, its grant once approved (when it expires, whether it was
 * redeemed), a summary of the agent that asked (no configuration, which an approvals reader
 * may not see), and the trace as the trace list shows it.
 */
export const presentApprovalDetail = ({
  approval,
  grant,
  agent,
  trace,
}: {
  approval: ApprovalRow;
  grant: ExecutionGrantRow | null;
  agent: AgentRow | null;
  trace: TraceRow | null;
}) => ({
  ...presentApproval(approval),
  grant: grant?.token ?? null,
  grant_expires_at: isoOrNull(grant?.expiresAt ?? null),
  grant_redeemed_at: isoOrNull(grant?.redeemedAt ?? null),
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

type Person = Pick<UserRow, 'id' | 'name' | 'email'>;

export const presentDelegation = ({
  delegation,
  delegator,
  delegate,
}: {
  delegation: VoteDelegationRow;
  delegator: Person;
  delegate: Person;
}) => ({
  id: delegation.id,
  delegator,
  delegate,
  starts_at: iso(delegation.startsAt),
  ends_at: iso(delegation.endsAt),
  reason: delegation.reason,
  created_at: iso(delegation.createdAt),
  revoked_at: isoOrNull(delegation.revokedAt),
});
