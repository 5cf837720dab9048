import type { Approval } from './queries';

export type Vote = Approval['votes'][number];

export interface Quorum {
  approvals: number;
  required: number;
}

/**
 * How far a request that needs several approvers has come, or null when one reviewer decides it.
 * Each approve is a distinct person: the service refuses a second vote by anyone.
 */
export function quorumOf(approval: Pick<Approval, 'approvals_required' | 'votes'>): Quorum | null {
  if (approval.approvals_required <= 1) return null;
  return { approvals: approval.votes.filter((vote) => vote.decision === 'approve').length, required: approval.approvals_required };
}

/** Who cast a vote as the service authenticated them, and whose delegated vote it was. */
export function voterOf(vote: Pick<Vote, 'principal' | 'on_behalf_of'>): string {
  return vote.on_behalf_of ? `${vote.principal} for ${vote.on_behalf_of}` : vote.principal;
}
