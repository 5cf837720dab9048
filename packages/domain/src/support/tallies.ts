import { sql } from 'drizzle-orm';
import type { Database } from '@agov/db';

/**
 * The tallies kept by triggers (migrations 0018, 0019): each writes its changes as rows to add
 * up, and a total reads the tallies and the changes together. Folding a table's changes is one
 * statement: a change is either still a change or already in its tallies, for every reader.
 * Folds running at once each take the changes the other did not (the second waits on the
 * first's deleted rows, then skips them).
 */
const FOLDS = [
  // A trace's change goes into its hour's tally and its day's.
  sql`
    with moved as (delete from trace_tally_changes returning *),
    hours as (
      insert into trace_tallies (tenant_id, hour, agent_id, decision, final_outcome, traces)
      select tenant_id, hour, agent_id, decision, final_outcome, sum(traces) from moved group by 1, 2, 3, 4, 5
      on conflict (tenant_id, hour, agent_id, decision, final_outcome) do update set traces = trace_tallies.traces + excluded.traces
    ),
    days as (
      insert into trace_day_tallies (tenant_id, day, agent_id, decision, final_outcome, traces)
      select tenant_id, date_trunc('day', hour, 'UTC'), agent_id, decision, final_outcome, sum(traces) from moved group by 1, 2, 3, 4, 5
      on conflict (tenant_id, day, agent_id, decision, final_outcome) do update set traces = trace_day_tallies.traces + excluded.traces
    )
    select count(*) as changes from moved`,
  sql`
    with moved as (delete from approval_tally_changes returning *),
    added as (
      insert into approval_tallies (tenant_id, agent_id, status, approvals)
      select tenant_id, agent_id, status, sum(approvals) from moved group by 1, 2, 3
      on conflict (tenant_id, agent_id, status) do update set approvals = approval_tallies.approvals + excluded.approvals
    )
    select count(*) as changes from moved`,
];

/** Adds the changes written since the last fold into their tallies; answers how many it folded. */
export async function foldTallies(deps: { database: Pick<Database, 'rows'> }): Promise<number> {
  let folded = 0;
  for (const fold of FOLDS) {
    const [row] = await deps.database.rows<{ changes: string | number }>(fold);
    folded += Number(row?.changes ?? 0);
  }
  return folded;
}
