import { api, unwrap } from '../../api/client';

/** The chart reads at most this many of the period's traces (five pages). */
const TRACE_CAP = 500;
const PAGE = 100;

/** The period's traces, newest first, up to TRACE_CAP; and whether there were more. */
export async function fetchRecentTraces(from: string) {
  const traces: { started_at: string; final_outcome: string }[] = [];
  let total = 0;
  for (let offset = 0; offset < TRACE_CAP; offset += PAGE) {
    const page = await unwrap(api.GET('/api/v1/traces', { params: { query: { from, limit: PAGE, offset } } }));
    traces.push(...page.data);
    total = page.pagination.total;
    if (offset + PAGE >= total) break;
  }
  return { traces, total };
}

/** The most recent decided requests (up to 100 approved and 100 denied). */
export async function fetchDecided() {
  const [approved, denied] = await Promise.all(
    (['approved', 'denied'] as const).map((status) =>
      unwrap(api.GET('/api/v1/approvals', { params: { query: { status, limit: 100, offset: 0 } } })),
    ),
  );
  return [...approved!.data, ...denied!.data];
}
