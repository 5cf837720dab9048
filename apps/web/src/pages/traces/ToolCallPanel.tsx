import { useId } from 'react';
import { CopyButton } from '../../ui/CopyButton';
import type { ToolCall } from './tool-call';

/**
 * The MCP tool call behind a trace or an approval, spelled out: a reviewer approves exactly
 * this tool with exactly these arguments, and an auditor matches a result to its digest.
 */
export function ToolCallPanel({ call, resultDigest = null }: { call: ToolCall; resultDigest?: string | null }) {
  const headingId = useId();
  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>Tool call</h2>
      <dl className="facts">
        <dt>Integration</dt>
        <dd>{call.integration}</dd>
        <dt>Tool</dt>
        <dd>
          <code>{call.tool}</code>
        </dd>
        <dt>Arguments</dt>
        <dd>
          {Object.keys(call.arguments).length > 0 ? (
            <pre className="json">{JSON.stringify(call.arguments, null, 2)}</pre>
          ) : (
            <span className="muted">none</span>
          )}
        </dd>
        {resultDigest && (
          <>
            <dt>Result SHA-256</dt>
            <dd>
              <code>{resultDigest}</code> <CopyButton value={resultDigest} label="Copy digest" />
            </dd>
          </>
        )}
      </dl>
    </section>
  );
}
