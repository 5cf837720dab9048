import type { NewEvent } from '../audit/chain-events.js';
import { ACTORS } from '../audit/chain-events.js';
import type { ApprovalRow, ApprovalVote } from '@agov/db';

export type Verdict = 'approve' | 'deny';

/** What each verdict does to the request and its trace, per the spec's state tables. */
export const VERDICTS = {
  approve: { status: 'approved', finalOutcome: 'completed_with_approval', event: 'approval.approved' },
  deny: { status: 'denied', finalOutcome: 'denied', event: 'approval.denied' },
} as const satisfies Record<Verdict, { status: ApprovalRow['status']; finalOutcome: string; event: string }>;

/**
 * The events a deciding vote appends: granted/denied by the reviewer, the operation
 * allowed/denied by the approval service, then the trace closed. The reviewer's event names
 * the authenticated principal (`deciderName`): the `approver_name` the caller typed is kept in
 * its metadata, never as the actor, so nobody can decide in another's name.
 */
export function decisionEvents(approval: ApprovalRow, vote: ApprovalVote): NewEvent[] {
  const approved = vote.decision === 'approve';
  const action = `${approval.requestedOperation} on ${approval.targetIntegration} (${approval.resourceScope})`;
  return [
    voteEvent(approval, vote),
    {
      event_type: approved ? 'operation_allowed' : 'operation_denied',
      actor_type: 'approval_service',
      actor_name: ACTORS.approvals,
      description: `${approved ? 'Allowed' : 'Denied'} ${action} on human decision`,
      status: approved ? 'allowed' : 'denied',
      approval_request_id: approval.id,
    },
    {
      event_type: 'trace_closed',
      actor_type: 'system',
      actor_name: ACTORS.system,
      description: approved ? 'Trace closed: approved by a reviewer' : 'Trace closed: denied by a reviewer',
      status: VERDICTS[vote.decision].finalOutcome,
    },
  ];
}

/** The people who approved so far: one per `counts_as`, however their votes were cast. */
export const approvalsAmong = (votes: readonly ApprovalVote[]) =>
  new Set(votes.filter((v) => v.decision === 'approve').map((v) => v.counts_as)).size;

/**
 * A reviewer's vote as its own event: `approval_granted` or `approval_denied`, with the status
 * the request has after it (still `pending` for an approval short of the quorum). A request
 * that needs more than one approver says how many it has; a vote cast as a delegate names both.
 */
export function voteEvent(approval: ApprovalRow, vote: ApprovalVote): NewEvent {
  const approved = vote.decision === 'approve';
  const note = vote.decision_note ? `: ${vote.decision_note}` : '';
  const onBehalf = vote.on_behalf_of ? ` for ${vote.on_behalf_of}` : '';
  const quorum = approval.approvalsRequired > 1;
  const approvals = approvalsAmong(approval.votes);
  const tally = quorum && approved ? ` (${approvals} of ${approval.approvalsRequired} approvals)` : '';
  return {
    event_type: approved ? 'approval_granted' : 'approval_denied',
    actor_type: 'human_reviewer',
    actor_name: vote.principal,
    description: `${approved ? 'Approved' : 'Denied'} by ${vote.principal}${onBehalf}${tally}${note}`,
    status: approval.status,
    approval_request_id: approval.id,
    metadata: {
      approver_name: vote.approver_name,
      decision_note: vote.decision_note,
      ...(vote.on_behalf_of && { on_behalf_of: vote.on_behalf_of }),
      ...(quorum && { approvals, approvals_required: approval.approvalsRequired }),
    },
  };
}

/** An approval that expired undecided closes its trace with one event. */
export function expiryEvents(approval: ApprovalRow): NewEvent[] {
  return [
    {
      event_type: 'trace_closed',
      actor_type: 'system',
      actor_name: ACTORS.system,
      description: `Trace closed: approval request expired undecided at ${approval.expiresAt.toISOString()}`,
      status: 'expired',
      approval_request_id: approval.id,
    },
  ];
}
