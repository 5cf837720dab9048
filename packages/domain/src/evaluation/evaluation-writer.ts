import {
  approvalRequests,
  jsonRows,
  outbox,
  traceEvents,
  traces,
  type ApprovalRow,
  type Database,
  type OutboxRow,
  type TraceEventRow,
  type TraceRow,
} from '@agov/db';
import { type BatcherOptions, StatementBatcher } from '../support/statement-batcher.js';

/** Everything one evaluation writes. */
export interface EvaluationRows {
  trace: TraceRow;
  events: readonly TraceEventRow[];
  approval: ApprovalRow | null;
  effects: readonly OutboxRow[];
}

const traceJson = jsonRows(traces);
const eventJson = jsonRows(traceEvents);
const approvalJson = jsonRows(approvalRequests);
const outboxJson = jsonRows(outbox);

/**
 * The rows of any number of evaluations as one constant, prepared statement: one round trip,
 * one transaction, nothing built per call. Sibling data-modifying CTEs see the same snapshot.
 */
const RECORD_EVALUATIONS = `
  with trace as (
    insert into ${traceJson.name} select * from jsonb_populate_recordset(null::${traceJson.name}, $1::jsonb)
  ), events as (
    insert into ${eventJson.name} select * from jsonb_populate_recordset(null::${eventJson.name}, $2::jsonb)
  ), approval as (
    insert into ${approvalJson.name} select * from jsonb_populate_recordset(null::${approvalJson.name}, $3::jsonb)
  )
  insert into ${outboxJson.name} select * from jsonb_populate_recordset(null::${outboxJson.name}, $4::jsonb)`;

/** Group commit for evaluate: every evaluation decided while earlier ones are being written goes into the next statement. */
export type EvaluationWriter = StatementBatcher<EvaluationRows>;

export function evaluationWriter(database: Database, options: BatcherOptions): EvaluationWriter {
  return new StatementBatcher(async (evaluations) => {
    await database.prepared(RECORD_EVALUATIONS, [
      traceJson.encode(evaluations.map((rows) => rows.trace)),
      eventJson.encode(evaluations.flatMap((rows) => rows.events)),
      approvalJson.encode(evaluations.flatMap((rows) => (rows.approval ? [rows.approval] : []))),
      outboxJson.encode(evaluations.flatMap((rows) => rows.effects)),
    ]);
    return evaluations.map(() => undefined);
  }, options);
}
