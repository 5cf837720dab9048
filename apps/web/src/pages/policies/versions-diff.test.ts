import { describe, expect, it } from 'vitest';
import { diffVersions } from './versions-diff';

describe('diffVersions', () => {
  const base = {
    policy_name: 'Writes',
    policy_effect: 'allow',
    priority: 10,
    conditions: null,
    max_session_ttl: null,
    approvals_required: 1,
    rationale: 'Fine.',
  };

  it('lists only the fields that changed, in reading order, values as text', () => {
    expect(diffVersions(base, { ...base, priority: 20, policy_effect: 'deny', conditions: { '==': [1, 1] } })).toEqual([
      { field: 'policy_effect', before: 'allow', after: 'deny' },
      { field: 'priority', before: '10', after: '20' },
      { field: 'conditions', before: '—', after: '{"==":[1,1]}' },
    ]);
  });

  it('shows a change of how many people must approve', () => {
    expect(diffVersions(base, { ...base, approvals_required: 2 })).toEqual([{ field: 'approvals_required', before: '1', after: '2' }]);
  });

  it('finds nothing between equal versions', () => {
    expect(diffVersions(base, { ...base })).toEqual([]);
  });
});
