import type { NewEvent } from '../audit/chain-events.js';
import { ACTORS } from '../audit/chain-events.js';
import type { ApprovalRow } from '@agov/db';

export type Verdict = 'approve' | 'deny';

/** What each verdict does to the request and its trace, per the spec's state tables. */
export const VERDICTS = {
  approve: { status: 'approved', finalOutcome: 'completed_with_approval', event: 'approval.approved' },
  deny: { status: 'denied', finalOutcome: 'denied', event: 'approval.denied' },
} as const satisfies Record<Verdict, { status: ApprovalRow['status']; finalOutcome: string; event: string }>;

/**
 * The events a reviewer's decision appends: granted/denied by the reviewer, the operation
 * allowed/denied by the approval service, then the trace closed. The reviewer's event names
 * `decidedBy`, the authenticated principal (`deciderName`): the `approver_name` the caller
 * typed is kept in its metadata, never as the actor, so nobody can decide in another's name.
 */
export function decisionEvents(approval: ApprovalRow, verdict: Verdict, decidedBy: string): NewEvent[] {
  const approved = verdict === 'approve';
  const note = approval.decisionNote ? `: ${approval.decisionNote}` : '';
  const action = `${approval.requestedOperation} on ${approval.targetIntegration} (${approval.resourceScope})`;
  return [
    {
      event_type: approved ? 'approval_granted' : 'approval_denied',
      actor_type: 'human_reviewer',
      actor_name: decidedBy,
      description: `${approved ? 'Approved' : 'Denied'} by ${decidedBy}${note}`,
      status: VERDICTS[verdict].status,
      approval_request_id: approval.id,
      metadata: { approver_name: approval.approverName, decision_note: approval.decisionNote },
    },
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
      status: VERDICTS[verdict].finalOutcome,
    },
  ];
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
