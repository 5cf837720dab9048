#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { verifyChain, type ChainedEvent } from '@agov/domain/hash-chain';

/**
 * Verifies an exported trace offline: `verify-trace <file.json>` (or `-` for standard input).
 * Accepts the single-trace export (`{trace, events, …}`) or the trace detail (`{id, events, …}`).
 * Exit status: 0 valid, 1 tampered, 2 unreadable input.
 */
type Event = Omit<ChainedEvent, 'trace_id'> & { integrity_hash: string | null };
interface TraceFile {
  trace?: { id?: unknown };
  id?: unknown;
  events?: unknown;
}

function main(argv: string[]): number {
  const [path] = argv;
  if (!path || argv.length > 1) {
    console.error('usage: verify-trace <export.json | ->');
    return 2;
  }
  let file: TraceFile;
  try {
    file = JSON.parse(readFileSync(path === '-' ? 0 : path, 'utf8')) as TraceFile;
  } catch (error) {
    console.error(`cannot read ${path}: ${(error as Error).message}`);
    return 2;
  }
  const traceId = file.trace?.id ?? file.id;
  if (typeof traceId !== 'string' || !Array.isArray(file.events)) {
    console.error('not a trace export: expected {trace: {id}, events: [...]} or {id, events: [...]}');
    return 2;
  }
  // The trace id is hashed into every event, whether or not the event object shows it.
  const events = (file.events as Event[]).map((event) => ({ ...event, trace_id: traceId }));
  const result = verifyChain(events);
  if (result.valid) {
    console.log(`valid: trace ${traceId}, ${events.length} events, hash chain intact`);
    return 0;
  }
  const position = events.findIndex((event) => event.id === result.firstInvalidEventId) + 1;
  console.log(`INVALID: trace ${traceId}, chain breaks at event ${result.firstInvalidEventId} (position ${position} of ${events.length})`);
  return 1;
}

process.exitCode = main(process.argv.slice(2));
