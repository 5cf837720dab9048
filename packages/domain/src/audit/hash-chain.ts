import { canonicalize } from '../support/canonical-json.js';
import { taggedSha256 } from '../support/sha256.js';

/** The fields of an audit event covered by its integrity hash, exactly as the API returns them. */
export interface ChainedEvent {
  id: string;
  trace_id: string;
  event_type: string;
  actor_type: string;
  actor_name: string;
  description: string;
  status: string;
  timestamp: string;
  policy_version: number | null;
  approval_request_id: string | null;
  metadata: Record<string, unknown> | null;
}

/** What a trace's first event chains to. */
export const GENESIS_HASH = '';

/**
 * "sha256:" + hex(SHA-256(previousHash + "\n" + JCS(fields))), the formula in README.md.
 * The fields are picked one by one so that whatever else the caller's object carries
 * (integrity_hash, agent_id, a row's tenant_id) can never leak into the hash.
 */
export function eventHash(previousHash: string, event: ChainedEvent): string {
  const hashed: ChainedEvent = {
    id: event.id,
    trace_id: event.trace_id,
    event_type: event.event_type,
    actor_type: event.actor_type,
    actor_name: event.actor_name,
    description: event.description,
    status: event.status,
    timestamp: event.timestamp,
    policy_version: event.policy_version,
    approval_request_id: event.approval_request_id,
    metadata: event.metadata,
  };
  const canonical = canonicalize(hashed);
  if (canonical === undefined) throw new Error('An audit event has no canonical JSON form');
  return taggedSha256(`${previousHash}\n${canonical}`);
}

/** Where a trace's chain ended when it was last appended to, as the trace row stores it. */
export interface ChainHead {
  eventCount: number;
  lastEventHash: string;
}

/**
 * Verifies a trace's events in order. Event i is valid when its stored integrity_hash
 * equals eventHash(stored integrity_hash of event i-1, or GENESIS_HASH for the first,
 * event i). Reports the first invalid event.
 *
 * Each event is checked against its predecessor's stored hash, not a recomputed one, so
 * the report points at the event where the chain breaks rather than at every event after it.
 *
 * With the stored `head`, an intact chain must also end where the head says. Events missing
 * from the end leave a shorter chain that is valid on its own; against the head it is not,
 * and the report names the last event still present (its hash is not the head's), or null
 * when none is left. Events past the head are reported at the first of them.
 */
export function verifyChain(
  events: readonly (ChainedEvent & { integrity_hash: string | null })[],
  head?: ChainHead,
): {
  valid: boolean;
  firstInvalidEventId: string | null;
} {
  let previousHash = GENESIS_HASH;
  for (const event of events) {
    if (event.integrity_hash === null || event.integrity_hash !== eventHash(previousHash, event)) {
      return { valid: false, firstInvalidEventId: event.id };
    }
    previousHash = event.integrity_hash;
  }
  if (head && (events.length !== head.eventCount || previousHash !== head.lastEventHash)) {
    const beyondHead = events.length > head.eventCount && events[head.eventCount - 1]?.integrity_hash === head.lastEventHash;
    return { valid: false, firstInvalidEventId: (beyondHead ? events[head.eventCount] : events.at(-1))?.id ?? null };
  }
  return { valid: true, firstInvalidEventId: null };
}
