import { canonicalize, sha256 } from './canonical-hash.js';

/** The action an approval is for, as evaluate takes it: any `Action` is one. */
export interface DigestedAction {
  agent_id: string;
  operation: string;
  target_integration: string;
  resource_scope: string;
  data_classification: string;
  context?: Record<string, unknown>;
}

/**
 * The `action_digest` an approval shows for this action (README "Action digest"):
 * `"sha256:" + hex(SHA-256(JCS({agent_id, operation, target_integration, resource_scope,
 * data_classification, context})))`, with `context` as given to evaluate, `{}` when none. A
 * tool about to run an approved action recomputes it from what it is about to do and compares.
 *
 * As the service computes it: the agent id in lowercase, only the six fields, and the action
 * as JSON carries it (what `evaluate` sends: a Date as its ISO text, undefined members left out).
 */
export async function actionDigest(action: DigestedAction): Promise<string> {
  const hashed = JSON.parse(
    JSON.stringify({
      agent_id: action.agent_id.toLowerCase(),
      operation: action.operation,
      target_integration: action.target_integration,
      resource_scope: action.resource_scope,
      data_classification: action.data_classification,
      context: action.context ?? {},
    }),
  );
  // An object always has a canonical form.
  return sha256(canonicalize(hashed)!);
}
