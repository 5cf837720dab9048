import type { AgentRow, ApprovalRow, ApprovalVote, Tx } from '@agov/db';
import { deciderName, identityOf, userIdentity, type Principal } from '../access/access.js';
import { AppError } from '../support/errors.js';
import type { Verdict } from './decision-events.js';
import { activeDelegator } from './delegations.js';

export interface VoteInput {
  approver_name: string;
  decision_note?: string;
  /** The e-mail of the reviewer whose vote this is, when the caller casts it as their delegate. */
  on_behalf_of?: string;
}

/**
 * The vote `principal` casts, checked against the request and the votes before it; the
 * caller holds the request's lock. A request that needs more than one approver takes votes
 * from distinct people only, none of them the principal that created the agent or asked
 * (CONTRACT, "Approval decisions"): an API key is no person, so it may deny such a request
 * but not approve it. A request that needs one approver decides on its first vote, as the
 * spec has it, with no more checks than before.
 */
export async function castVote(
  tx: Tx,
  principal: Principal,
  approval: ApprovalRow,
  agent: Pick<AgentRow, 'createdByIdentity'>,
  verdict: Verdict,
  input: VoteInput,
  now: Date,
): Promise<ApprovalVote> {
  const identity = identityOf(principal);
  const delegator = input.on_behalf_of === undefined ? null : await activeDelegator(tx, principal, input.on_behalf_of, now);
  const countsAs = delegator ? userIdentity(delegator.id) : identity;
  if (approval.approvalsRequired > 1) {
    if (verdict === 'approve' && principal.kind === 'api_key') {
      throw new AppError(
        'forbidden',
        `this request needs ${approval.approvalsRequired} people to approve it; an API key cannot approve it, a signed-in reviewer can`,
        // As a key on a route for people only is told (CONTRACT, "Integration decisions").
        { required_role: 'reviewer', role: null },
        approval.traceId,
      );
    }
    const barred = [agent.createdByIdentity, approval.requestedByIdentity];
    if (barred.includes(identity) || barred.includes(countsAs)) {
      throw new AppError(
        'conflict',
        'the principal that created the agent or asked for this action cannot vote on it',
        undefined,
        approval.traceId,
      );
    }
  }
  if (approval.votes.some((vote) => vote.identity === identity || vote.counts_as === countsAs)) {
    throw new AppError('conflict', 'this person has already voted on this request', { status: approval.status }, approval.traceId);
  }
  return {
    decision: verdict,
    identity,
    counts_as: countsAs,
    principal: deciderName(principal),
    on_behalf_of: delegator && `${delegator.name} <${delegator.email}>`,
    approver_name: input.approver_name,
    decision_note: input.decision_note ?? null,
    at: now.toISOString(),
  };
}
