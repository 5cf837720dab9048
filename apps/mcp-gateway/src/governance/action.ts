import type { Action } from '@agov/sdk';
import type { ServerConfig } from '../config/load.js';

/** What an unmapped tool is evaluated as, unless its server's `defaults` say otherwise. */
export const UNMAPPED = { operation: 'execute', data_classification: 'internal' } as const;

/** A call whose evaluation cannot be written: it fails closed, unevaluated and unforwarded. */
export class UnmappableCall extends Error {
  override readonly name = 'UnmappableCall';
}

export interface MappedCall {
  readonly action: Action;
  /** Forward the call unevaluated while the governance API cannot be reached. */
  readonly failOpen: boolean;
}

/**
 * The evaluation a tool call asks for: the tool's mapping over its server's defaults over
 * `UNMAPPED`. The resource scope is the mapping's template filled from the call's top-level
 * arguments (default: the tool's name); the whole call is the context, so rules and
 * conditions see exactly what the tool will be asked to do.
 */
export function mapCall(server: ServerConfig, agentId: string, tool: string, args: Record<string, unknown>): MappedCall {
  const mapping = { ...UNMAPPED, ...server.defaults, ...server.tools[tool] };
  return {
    action: {
      agent_id: agentId,
      operation: mapping.operation,
      target_integration: mapping.target_integration ?? server.targetIntegration,
      resource_scope: mapping.resource_scope === undefined ? tool : fillTemplate(mapping.resource_scope, args),
      data_classification: mapping.data_classification,
      context: { tool, arguments: args },
    },
    failOpen: mapping.fail_open ?? false,
  };
}

const PLACEHOLDER = /\{([^{}]+)\}/g;

/** `repo:{owner}/{repo}` with the arguments' values; a missing or non-scalar one is refused. */
export function fillTemplate(template: string, args: Record<string, unknown>): string {
  return template.replace(PLACEHOLDER, (_match, name: string) => {
    const value = Object.hasOwn(args, name) ? args[name] : undefined;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
    throw new UnmappableCall(
      value === undefined || value === null
        ? `the call has no argument '${name}', which its resource_scope needs`
        : `the argument '${name}' is not a string or number, so its resource_scope cannot be written`,
    );
  });
}
