import { sql } from 'drizzle-orm';
import type { Database } from '@agov/db';

/**
 * The tallies kept by triggers (migration 0018): each writes its changes as rows to add up, and
 * a total reads the tallies and the changes together. Their keys and counted column.
 */
const TALLIES = [
  {
    tallies: 'trace_tallies',
    changes: 'trace_tally_changes',
    keys: 'tenant_id, hour, agent_id, decision, final_outcome',
    counted: 'traces',
  },
  { tallies: 'approval_tallies', changes: 'approval_tally_changes', keys: 'tenant_id, agent_id, status', counted: 'approvals' },
] as const;

/**
 * Adds the changes written since the last fold into their tallies, one statement per table: a
 * change is either still a change or already in its tally, for every reader. Folds running at
 * once each take the changes the other did not (the second waits on the first's deleted rows,
 * then skips them). Answers how many changes it folded.
 */
export async function foldTallies(deps: { database: Pick<Database, 'rows'> }): Promise<number> {
  let folded = 0;
  for (const { tallies, changes, keys, counted } of TALLIES) {
    const [row] = await deps.database.rows<{ changes: string | number }>(
      sql.raw(`
        with moved as (delete from ${changes} returning *),
        added as (
          insert into ${tallies} (${keys}, ${counted})
          select ${keys}, sum(${counted}) from moved group by ${keys}
          on conflict (${keys}) do update set ${counted} = ${tallies}.${counted} + excluded.${counted}
        )
        select count(*) as changes from moved`),
    );
    folded += Number(row?.changes ?? 0);
  }
  return folded;
}
