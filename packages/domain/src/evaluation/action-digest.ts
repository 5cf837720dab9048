import { taggedSha256 } from '../support/sha256.js';
import { canonicalize } from '../support/canonical-json.js';

/** The action an approval is asked for, in evaluate's field names. */
export interface DigestedAction {
  agent_id: string;
  operation: string;
  target_integration: string;
  resource_scope: string;
  data_classification: string;
  context?: Record<string, unknown>;
}

/**
 * `"sha256:" + hex(SHA-256(JCS({agent_id, operation, target_integration, resource_scope,
 * data_classification, context})))`, the formula in README.md ("Action digest"); the SDK's
 * `actionDigest` computes the same on its own, and the migration that added the column did in
 * SQL for the requests made before.
 *
 * It covers the action as JSON carries it and the approval shows it: the agent's id in
 * lowercase (ids are case-insensitive and the service shows them so), no context as `{}`,
 * and the fields picked one by one so that nothing else the caller's object holds is hashed.
 * The JSON round trip gives the hashed value the stored one's form: a number beyond a
 * double's range, which parsing made Infinity and JCS refuses, is stored as null.
 */
export function actionDigest(action: DigestedAction): string {
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
  return taggedSha256(canonicalize(hashed)!);
}
