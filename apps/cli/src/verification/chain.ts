import { verifyChain, type ChainedEvent } from '@agov/domain/hash-chain';

/** An event as exports show it: every hashed field but `trace_id`, which the trace supplies. */
export type ExportedEvent = Omit<ChainedEvent, 'trace_id'> & { integrity_hash: string | null };

/**
 * The one place the CLI checks a hash chain: the first event of the trace whose
 * integrity_hash does not follow from its predecessor's, or null when the chain holds.
 * The server's verifier today; a portable one (the SDK's, whose hashing is asynchronous, on
 * WebCrypto) can replace it here alone.
 */
export async function firstBrokenEvent(traceId: string, events: readonly ExportedEvent[]): Promise<string | null> {
  // The trace id is hashed into every event, whether or not the event object shows it.
  return verifyChain(events.map((event) => ({ ...event, trace_id: traceId }))).firstInvalidEventId;
}
