import { createHash } from 'node:crypto';
import canonicalizeModule from 'canonicalize';
import { describe, expect, it } from 'vitest';
import { actionDigest } from './action-digest.js';

const canonicalize = canonicalizeModule as unknown as (input: object) => string;
const sha256 = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

const ACTION = {
  agent_id: '3f0c9a52-6d1e-4b7a-9c2f-8e5d4a1b7c60',
  operation: 'write',
  target_integration: 'github',
  resource_scope: 'repo/main/*',
  data_classification: 'confidential',
  context: { ticket: 'OPS-7', amount: 1e21, ratio: 0.5, files: ['a.txt', 'ü.md'], reviewer: { name: 'Zoë', note: 'line\nbreak' } },
};

// Written out by hand from RFC 8785: keys sorted at every level, 1e21 as ECMAScript prints it,
// non-ASCII text as UTF-8 rather than escaped, the newline as \n.
const ACTION_JCS =
  '{"agent_id":"3f0c9a52-6d1e-4b7a-9c2f-8e5d4a1b7c60","context":{"amount":1e+21,"files":["a.txt","ü.md"],"ratio":0.5,' +
  '"reviewer":{"name":"Zoë","note":"line\\nbreak"},"ticket":"OPS-7"},"data_classification":"confidential",' +
  '"operation":"write","resource_scope":"repo/main/*","target_integration":"github"}';

describe('actionDigest', () => {
  it('is sha256 over the JCS form of the action and its context', () => {
    expect(actionDigest(ACTION)).toBe(sha256(canonicalize(ACTION)));
    expect(actionDigest(ACTION)).toBe(sha256(ACTION_JCS));
    expect(actionDigest(ACTION)).toBe('sha256:366aa17c0c5b4467ece0c039110645e755fbbba2d846324ef607f95c8660d83a');
  });

  it('hashes no context as {}', () => {
    const { context: _context, ...withoutContext } = ACTION;
    expect(actionDigest(withoutContext)).toBe(actionDigest({ ...withoutContext, context: {} }));
    expect(actionDigest(withoutContext)).toBe('sha256:9be6cff82e0b9a88e86d461e5442253a88127cca87c23da603f6c0acbbd0c1cb');
  });

  it('reads the agent id in lowercase and hashes only the six fields', () => {
    const extra = { ...ACTION, agent_id: ACTION.agent_id.toUpperCase(), approval_id: 'x', tenant_id: 'y' };
    expect(actionDigest(extra)).toBe(actionDigest(ACTION));
  });

  it('changes with any field and with the context', () => {
    const digest = actionDigest(ACTION);
    for (const field of ['operation', 'target_integration', 'resource_scope', 'data_classification'] as const) {
      expect(actionDigest({ ...ACTION, [field]: `${ACTION[field]}x` })).not.toBe(digest);
    }
    expect(actionDigest({ ...ACTION, context: { ...ACTION.context, ratio: 0.25 } })).not.toBe(digest);
  });

  it('hashes a number beyond a double’s range as null, as the approval stores and shows it', () => {
    const parsed = JSON.parse('{"size":1e400}');
    expect(actionDigest({ ...ACTION, context: parsed })).toBe(actionDigest({ ...ACTION, context: { size: null } }));
  });
});
