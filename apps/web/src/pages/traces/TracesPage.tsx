import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, downloadUrl, unwrap } from '../../api/client';
import { useCan } from '../../session/session';
import { StatusBadge } from '../../ui/Badge';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { SelectField } from '../../ui/choices';
import { TextField } from '../../ui/fields';
import { PageHeader } from '../../ui/PageHeader';
import { ANY, useUrlFilters } from '../../ui/url-filters';
import { Pagination } from '../../ui/Pagination';
import { Time } from '../../ui/Time';
import { fetchAgentNames } from '../approvals/queries';
import { OUTCOMES } from './outcomes';
import { tracesKey } from './queries';

const PAGE_SIZE = 20;

/** `datetime-local` values are local wall-clock times; the API takes ISO 8601 instants. */
const isoOf = (local: string | null) => (local ? new Date(local).toISOString() : undefined);

export function TracesPage() {
  const { params, offset, set, goTo } = useUrlFilters();
  const agentId = params.get('agent_id') ?? '';
  const outcome = params.get('outcome') ?? '';
  const from = params.get('from') ?? '';
  const to = params.get('to') ?? '';
  const canExport = useCan('decide');

  const query = {
    ...(agentId ? { agent_id: agentId } : {}),
    ...(outcome ? { outcome: outcome as (typeof OUTCOMES)[number] } : {}),
    ...(from ? { from: isoOf(from)! } : {}),
    ...(to ? { to: isoOf(to)! } : {}),
  };
  const traces = useQuery({
    queryKey: [...tracesKey, 'list', query, offset],
    queryFn: () => unwrap(api.GET('/api/v1/traces', { params: { query: { ...query, limit: PAGE_SIZE, offset } } })),
  });
  const agentNames = useQuery({ queryKey: ['agents', 'names'], queryFn: fetchAgentNames, staleTime: 60_000 });

  // Bulk exports need a period: the filter's, or everything up to now.
  const period = { from: isoOf(from) ?? '1970-01-01T00:00:00.000Z', to: isoOf(to) ?? new Date().toISOString() };
  const agentOptions = [{ id: ANY, label: 'Any agent' }, ...[...(agentNames.data ?? new Map())].map(([id, name]) => ({ id, label: name }))];
  const outcomeOptions = [
    { id: ANY, label: 'Any outcome' },
    ...OUTCOMES.map((value) => ({ id: value, label: value.replaceAll('_', ' ') })),
  ];

  return (
    <section>
      <PageHeader
        title="Traces"
        actions={
          canExport && (
            <>
              <a
                className="button button-secondary"
                href={downloadUrl('/api/v1/traces/export', { ...period, format: 'csv', agent_id: agentId || undefined })}
                download
              >
                Export traces (CSV)
              </a>
              <a className="button button-secondary" href={downloadUrl('/api/v1/audit/export', { ...period, format: 'json' })} download>
                Audit events (JSON)
              </a>
              <a className="button button-secondary" href={downloadUrl('/api/v1/audit/export', { ...period, format: 'csv' })} download>
                Audit events (CSV)
              </a>
            </>
          )
        }
      >
        Every decision, with its hash-chained events.
      </PageHeader>
      <div className="filters">
        <SelectField label="Agent" options={agentOptions} value={agentId || ANY} onChange={set('agent_id')} />
        <SelectField label="Outcome" options={outcomeOptions} value={outcome || ANY} onChange={set('outcome')} />
        <TextField label="From" type="datetime-local" value={from} onChange={set('from')} />
        <TextField label="To" type="datetime-local" value={to} onChange={set('to')} />
      </div>
      <ErrorNotice error={traces.error} />
      {traces.isPending ? (
        <p className="muted">Loading…</p>
      ) : traces.data ? (
        <>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Traces</caption>
              <thead>
                <tr>
                  <th scope="col">Started</th>
                  <th scope="col">Agent</th>
                  <th scope="col">Operation</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Duration</th>
                  <th scope="col">Events</th>
                  <th scope="col">Approval</th>
                </tr>
              </thead>
              <tbody>
                {traces.data.data.map((trace) => (
                  <tr key={trace.id}>
                    <td>
                      <Link to={`/traces/${trace.id}`}>
                        <Time value={trace.started_at} />
                      </Link>
                    </td>
                    <td>{trace.agent_name}</td>
                    <td>
                      {trace.requested_operation}
                      <div className="muted">
                        {trace.target_integration} · <span className="mono">{trace.resource_scope}</span>
                      </div>
                    </td>
                    <td>
                      <StatusBadge value={trace.final_outcome} />
                    </td>
                    <td>{trace.duration_ms === null ? <span className="muted">—</span> : `${trace.duration_ms} ms`}</td>
                    <td>{trace.event_count}</td>
                    <td>{trace.has_approval ? 'yes' : 'no'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {traces.data.data.length === 0 && <p className="empty">No traces match.</p>}
          </div>
          <Pagination total={traces.data.pagination.total} limit={PAGE_SIZE} offset={offset} onChange={goTo} />
        </>
      ) : null}
    </section>
  );
}
