import { describe, expect, it } from 'vitest';
import { quorumOf, voterOf } from './votes';

const vote = (decision: 'approve' | 'deny') => ({
  decision,
  principal: 'Ada <ada@example.test>',
  on_behalf_of: null,
  approver_name: 'Ada',
  decision_note: null,
  at: '2026-11-26T10:00:00.000Z',
});

describe('quorumOf', () => {
  it('is null for a request one reviewer decides, whatever its votes', () => {
    expect(quorumOf({ approvals_required: 1, votes: [vote('approve')] })).toBeNull();
  });

  it('counts the approves towards the quorum, not the denies', () => {
    expect(quorumOf({ approvals_required: 3, votes: [vote('approve'), vote('deny')] })).toEqual({ approvals: 1, required: 3 });
    expect(quorumOf({ approvals_required: 2, votes: [] })).toEqual({ approvals: 0, required: 2 });
  });
});

describe('voterOf', () => {
  it('names the voter, and the reviewer a delegated vote was cast for', () => {
    expect(voterOf({ principal: 'Ada <ada@example.test>', on_behalf_of: null })).toBe('Ada <ada@example.test>');
    expect(voterOf({ principal: 'Bob <bob@example.test>', on_behalf_of: 'Ada <ada@example.test>' })).toBe(
      'Bob <bob@example.test> for Ada <ada@example.test>',
    );
  });
});
