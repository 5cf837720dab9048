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

interface Waiting {
  rows: EvaluationRows;
  committed(): void;
  failed(error: unknown): void;
}

/**
 * Group commit for evaluate. A write starts at once while fewer than `maxInFlight` are under
 * way; evaluations decided meanwhile wait, and the next write takes all of them (up to
 * `maxBatch`) as one statement in one transaction. Idle, nothing waits; under load, each
 * commit carries many evaluations, so PostgreSQL does far less work per evaluation. Every
 * caller is answered only after the commit that holds its rows. If a batch fails, each of its
 * evaluations is written again on its own, so one that cannot be written fails alone, and the
 * statement being atomic, it leaves nothing behind.
 */
export class EvaluationWriter {
  private readonly waiting: Waiting[] = [];
  private inFlight = 0;

  constructor(
    private readonly database: Database,
    private readonly options: { maxInFlight: number; maxBatch: number },
  ) {}

  write(rows: EvaluationRows): Promise<void> {
    return new Promise((committed, failed) => {
      this.waiting.push({ rows, committed, failed });
      this.startWrites();
    });
  }

  private startWrites(): void {
    while (this.inFlight < this.options.maxInFlight && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.options.maxBatch);
      this.inFlight += 1;
      void this.commit(batch).finally(() => {
        this.inFlight -= 1;
        this.startWrites();
      });
    }
  }

  private async commit(batch: Waiting[]): Promise<void> {
    try {
      await this.record(batch.map((waiting) => waiting.rows));
      for (const waiting of batch) waiting.committed();
    } catch (error) {
      if (batch.length === 1) return batch[0]!.failed(error);
      await Promise.all(batch.map((waiting) => this.record([waiting.rows]).then(waiting.committed, waiting.failed)));
    }
  }

  private async record(evaluations: readonly EvaluationRows[]): Promise<void> {
    await this.database.prepared(RECORD_EVALUATIONS, [
      traceJson.encode(evaluations.map((rows) => rows.trace)),
      eventJson.encode(evaluations.flatMap((rows) => rows.events)),
      approvalJson.encode(evaluations.flatMap((rows) => (rows.approval ? [rows.approval] : []))),
      outboxJson.encode(evaluations.flatMap((rows) => rows.effects)),
    ]);
  }
}
