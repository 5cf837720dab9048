import { describe, expect, it } from 'vitest';
import type { TraceEvent } from './queries';
import { resultDigestOf, toolCallIn, toolCallOf } from './tool-call';

const event = (event_type: string, metadata: TraceEvent['metadata']): TraceEvent => ({
  id: event_type,
  event_type,
  actor_type: 'agent',
  actor_name: 'fs-gateway',
  description: '',
  status: 'started',
  timestamp: '2026-11-01T09:00:00.000Z',
  policy_version: null,
  approval_request_id: null,
  metadata,
  integrity_hash: null,
});

const initiated = (context: unknown) =>
  event('trace_initiated', { operation: 'read', target_integration: 'filesystem', resource_scope: '/srv/data/report.txt', context });

describe('toolCallOf', () => {
  it('reads the tool and its arguments from the evaluated context, with the trace integration', () => {
    const trace = {
      target_integration: 'filesystem',
      events: [initiated({ tool: 'read_text_file', arguments: { path: '/srv/data/report.txt', head: 10 } })],
    };
    expect(toolCallOf(trace)).toEqual({
      integration: 'filesystem',
      tool: 'read_text_file',
      arguments: { path: '/srv/data/report.txt', head: 10 },
    });
  });

  it('finds none in a context that is not a tool call', () => {
    for (const context of [
      undefined,
      null,
      { ticket: 'OPS-7' },
      { tool: 'read_text_file' },
      { tool: 7, arguments: {} },
      { tool: 'ls', arguments: ['/'] },
    ]) {
      expect(toolCallOf({ target_integration: 'filesystem', events: [initiated(context)] })).toBeNull();
    }
  });

  it('finds none without a trace_initiated event', () => {
    expect(
      toolCallOf({ target_integration: 'filesystem', events: [event('policy_evaluated', { context: { tool: 'x', arguments: {} } })] }),
    ).toBeNull();
  });
});

describe('toolCallIn', () => {
  it('reads an approval context snapshot the same way', () => {
    expect(toolCallIn('filesystem', { tool: 'write_file', arguments: { path: '/srv/data/a.txt', content: 'hi' } })).toEqual({
      integration: 'filesystem',
      tool: 'write_file',
      arguments: { path: '/srv/data/a.txt', content: 'hi' },
    });
    expect(toolCallIn('filesystem', null)).toBeNull();
  });
});

describe('resultDigestOf', () => {
  const digest = 'ab'.repeat(32);

  it('is the digest the successful outcome recorded', () => {
    const metadata = { tool: 'read_text_file', content_types: ['text'], result_sha256: digest };
    expect(resultDigestOf({ events: [initiated({}), event('operation_executed', metadata)] })).toBe(digest);
  });

  it('is null for a failed outcome, an outcome without one, or none yet', () => {
    expect(resultDigestOf({ events: [event('operation_failed', { error: 'ENOENT' })] })).toBeNull();
    expect(resultDigestOf({ events: [event('operation_executed', { summary: 'done' })] })).toBeNull();
    expect(resultDigestOf({ events: [event('operation_executed', null)] })).toBeNull();
    expect(resultDigestOf({ events: [initiated({})] })).toBeNull();
  });
});
