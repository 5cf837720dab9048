import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../../apps/api/test/harness.js';
import { type Action, actionDigest } from '../src/index.js';
import { governedAgent, listen, writeToRepo } from './service.js';

const t = useTestApp();

describe('actionDigest', () => {
  it('gives the value of the README’s formula for a fixed action', async () => {
    // The vector of the service's own unit test (packages/domain/src/evaluation/action-digest.test.ts).
    const action: Action = {
      agent_id: '3f0c9a52-6d1e-4b7a-9c2f-8e5d4a1b7c60',
      operation: 'write',
      target_integration: 'github',
      resource_scope: 'repo/main/*',
      data_classification: 'confidential',
      context: { ticket: 'OPS-7', amount: 1e21, ratio: 0.5, files: ['a.txt', 'ü.md'], reviewer: { name: 'Zoë', note: 'line\nbreak' } },
    };
    expect(await actionDigest(action)).toBe('sha256:366aa17c0c5b4467ece0c039110645e755fbbba2d846324ef607f95c8660d83a');
    const { context: _context, ...withoutContext } = action;
    expect(await actionDigest(withoutContext)).toBe('sha256:9be6cff82e0b9a88e86d461e5442253a88127cca87c23da603f6c0acbbd0c1cb');
  });

  it('equals the digest the service shows for an evaluated action with a nested context', async () => {
    const { runtime, agentId } = await governedAgent(t, await listen(t), 'approval_required');
    const action: Action = {
      ...writeToRepo(agentId),
      // Upper case, as a client may send an id: the service shows it, and digests it, in lower case.
      agent_id: agentId.toUpperCase(),
      context: {
        pull_request: { number: 42, labels: ['release', 'ünïcode ✓'], author: { login: 'octo', id: 1e21 } },
        checks: [{ name: 'ci', passed: true, took_s: 12.5 }, null],
        opened_at: new Date('2026-11-26T12:00:00Z'),
      },
    };
    const evaluation = await runtime.evaluate(action);
    expect(evaluation.decision).toBe('approval_required');
    const approval = await runtime.getApproval(evaluation.approval_request_id!);
    expect(approval.action_digest).toBe(await actionDigest(action));
    expect((await runtime.getApprovalStatus(approval.id)).action_digest).toBe(approval.action_digest);

    const withoutContext = await runtime.evaluate(writeToRepo(agentId));
    const bare = await runtime.getApproval(withoutContext.approval_request_id!);
    expect(bare.action_digest).toBe(await actionDigest({ ...writeToRepo(agentId), context: {} }));
    expect(bare.action_digest).not.toBe(approval.action_digest);
  });
});
