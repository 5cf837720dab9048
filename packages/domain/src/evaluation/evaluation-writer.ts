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
}

const traceJson = jsonRows(traces);
const eventJson = jsonRows(traceEvents);
const approvalJson = jsonRows(approvalRequests);
const grantJson = jsonRows(executionGrants);
const outboxJson = jsonRows(outbox);
const shadowJson = jsonRows(shadowDecisions);

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
  ), grant_row as (
    insert into ${grantJson.name} select * from jsonb_populate_recordset(null::${grantJson.name}, $4::jsonb)
  ), shadow as (
    insert into ${shadowJson.name} select * from jsonb_populate_recordset(null::${shadowJson.name}, $6::jsonb)
  )
  insert into ${outboxJson.name} select * from jsonb_populate_recordset(null::${outboxJson.name}, $5::jsonb)`;

/** Group commit for evaluate: every evaluation decided while earlier ones are being written goes into the next statement. */
export type EvaluationWriter = StatementBatcher<EvaluationRows>;

export function evaluationWriter(database: Database, options: BatcherOptions): EvaluationWriter {
  return new StatementBatcher(async (evaluations) => {
    await database.prepared(RECORD_EVALUATIONS, [
      traceJson.encode(evaluations.map((rows) => rows.trace)),
      eventJson.encode(evaluations.flatMap((rows) => rows.events)),
      approvalJson.encode(evaluations.flatMap((rows) => (rows.approval ? [rows.approval] : []))),
      grantJson.encode(evaluations.flatMap((rows) => (rows.grant ? [rows.grant] : []))),
      outboxJson.encode(evaluations.flatMap((rows) => rows.effects)),
      // Almost always `[]`: an agent without shadow rules adds nothing to the statement but that.
      shadowJson.encode(evaluations.flatMap((rows) => (rows.shadow ? [rows.shadow] : []))),
    ]);
    return evaluations.map(() => undefined);
  }, options);
}
