import type { Trace } from './queries';

/** An MCP tool call as the gateway submits it for evaluation: the server's integration, the tool and its arguments. */
export interface ToolCall {
  integration: string;
  tool: string;
  arguments: Record<string, unknown>;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The tool call an evaluation's context describes, or null when the context came from something other than a tool call. */
export function toolCallIn(integration: string, context: unknown): ToolCall | null {
  if (!isRecord(context) || typeof context.tool !== 'string' || !isRecord(context.arguments)) return null;
  return { integration, tool: context.tool, arguments: context.arguments };
}

/** The tool call a trace governs, from the evaluate request its `trace_initiated` event records. */
export function toolCallOf(trace: Pick<Trace, 'target_integration' | 'events'>): ToolCall | null {
  const initiated = trace.events.find((event) => event.event_type === 'trace_initiated');
  return toolCallIn(trace.target_integration, initiated?.metadata?.context);
}

/**
 * The SHA-256 of the tool's result the gateway reported with a successful outcome, or null:
 * the result itself is never recorded, so its holder proves it is the one traced by this digest.
 */
export function resultDigestOf(trace: Pick<Trace, 'events'>): string | null {
  const executed = trace.events.find((event) => event.event_type === 'operation_executed');
  const digest = executed?.metadata?.result_sha256;
  return typeof digest === 'string' ? digest : null;
}
