import {
  approvalRequests,
  executionGrants,
  jsonRows,
  outbox,
  shadowDecisions,
  traceEvents,
  traces,
  type ApprovalRow,
  type Database,
  type ExecutionGrantRow,
  type OutboxRow,
  type ShadowDecisionRow,
  type TraceEventRow,
  type TraceRow,
} from '@agov/db';
import { StaleCaches } from '../caches/freshness.js';
import { INVALIDATION_CLOCK } from '../caches/invalidation.js';
import { type BatcherOptions, StatementBatcher } from '../support/statement-batcher.js';

/** Everything one evaluation writes. */
export interface EvaluationRows {
  trace: TraceRow;
  events: readonly TraceEventRow[];
  approval: ApprovalRow | null;
  grant: ExecutionGrantRow | null;
  effects: readonly OutboxRow[];
  /** What a shadow rule would have decided instead; null when none would have changed the decision. */
  shadow: ShadowDecisionRow | null;
  /**
   * How far the process had heard of invalidations when the request began (`Freshness.heardSoFar`):
   * the rows are written only if no later change has committed, else the write fails with
   * `StaleCaches`. Null: written regardless (the caches were checked before, or cannot be stale).
   */
  heardThrough: number | null;
}

const traceJson = jsonRows(traces);
const eventJson = jsonRows(traceEvents);
const approvalJson = jsonRows(approvalRequests);
const grantJson = jsonRows(executionGrants);
const outboxJson = jsonRows(outbox);
const shadowJson = jsonRows(shadowDecisions);

/**
 * The rows of any number of evaluations as one constant, prepared statement: one round trip,
 * one transaction, nothing built per call. Sibling data-modifying CTEs see the same snapshot,
 * in which `fresh` reads the invalidation clock once: nothing is written unless it is at most
 * $7, the least any of the evaluations had heard (null: no condition). It answers whether the
 * rows were written.
 */
const RECORD_EVALUATIONS = `
  with fresh as (
    select $7::bigint is null or coalesce((select seq from ${INVALIDATION_CLOCK}), 0) <= $7::bigint as written
  ), trace as (
    ${traceJson.insert('$1')} where (select written from fresh)
  ), events as (
    ${eventJson.insert('$2')} where (select written from fresh)
  ), approval as (
    ${approvalJson.insert('$3')} where (select written from fresh)
  ), grant_row as (
    ${grantJson.insert('$4')} where (select written from fresh)
  ), shadow as (
    ${shadowJson.insert('$6')} where (select written from fresh)
  ), effects as (
    ${outboxJson.insert('$5')} where (select written from fresh)
  )
  select written from fresh`;

/** The least clock value any of `evaluations` had heard, or null when none of them asks for the check. */
function leastHeard(evaluations: readonly EvaluationRows[]): number | null {
  let least: number | null = null;
  for (const { heardThrough } of evaluations) if (heardThrough !== null && (least === null || heardThrough < least)) least = heardThrough;
  return least;
}

/**
 * Group commit for evaluate: every evaluation decided while earlier ones are being written goes
 * into the next statement. A statement the clock check refuses fails; the batcher then writes
 * each of its evaluations alone, so only those that had not heard of the change fail.
 */
export type EvaluationWriter = StatementBatcher<EvaluationRows>;

export function evaluationWriter(database: Database, options: BatcherOptions): EvaluationWriter {
  return new StatementBatcher(async (evaluations) => {
    const [fresh] = await database.prepared<{ written: boolean }>(RECORD_EVALUATIONS, [
      traceJson.encode(evaluations.map((rows) => rows.trace)),
      eventJson.encode(evaluations.flatMap((rows) => rows.events)),
      approvalJson.encode(evaluations.flatMap((rows) => (rows.approval ? [rows.approval] : []))),
      grantJson.encode(evaluations.flatMap((rows) => (rows.grant ? [rows.grant] : []))),
      outboxJson.encode(evaluations.flatMap((rows) => rows.effects)),
      // Almost always `[]`: an agent without shadow rules adds nothing to the statement but that.
      shadowJson.encode(evaluations.flatMap((rows) => (rows.shadow ? [rows.shadow] : []))),
      leastHeard(evaluations),
    ]);
    if (!fresh?.written) throw new StaleCaches();
    return evaluations.map(() => undefined);
  }, options);
}
