import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../../api/client';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { SelectField } from '../../ui/choices';
import { TextField } from '../../ui/fields';
import { PageHeader } from '../../ui/PageHeader';
import { ANY, useUrlFilters } from '../../ui/url-filters';
import { fetchAgentNames } from '../approvals/queries';
import { WEEK_MS } from './queries';
import { TraceLinks, Transition } from './Transitions';

/** `datetime-local` values are local wall-clock times; the API takes ISO 8601 instants. */
const isoOf = (local: string) => new Date(local).toISOString();

/** Per shadow rule, the decisions it would have changed in a period (the last week unless one is chosen). */
export function ShadowReportPage() {
  const { params, set } = useUrlFilters();
  const agentId = params.get('agent_id') ?? '';
  const from = params.get('from') ?? '';
  const to = params.get('to') ?? '';
  // Fixed when the page opens, so that the default period does not move under the query.
  const [openedAt] = useState(() => Date.now());
  const query = {
    from: from ? isoOf(from) : new Date(openedAt - WEEK_MS).toISOString(),
    to: to ? isoOf(to) : new Date(openedAt).toISOString(),
    ...(agentId ? { agent_id: agentId } : {}),
  };
  const report = useQuery({
    queryKey: ['policies', 'shadow-report', query],
    queryFn: () => unwrap(api.GET('/api/v1/policies/shadow-report', { params: { query } })),
  });
  const agentNames = useQuery({ queryKey: ['agents', 'names'], queryFn: fetchAgentNames, staleTime: 60_000 });
  const agentOptions = [
    { id: ANY, label: 'Every agent' },
    ...[...(agentNames.data ?? new Map())].map(([id, name]) => ({ id, label: name })),
  ];

  return (
    <section>
      <PageHeader title="Shadow report">
        What each shadow rule would have changed had it been enforced: the decisions it would have made otherwise, and some of their traces,
        newest first.
      </PageHeader>
      <div className="filters">
        <SelectField label="Agent" options={agentOptions} value={agentId || ANY} onChange={set('agent_id')} />
        <TextField label="From" description="Empty: a week ago" type="datetime-local" value={from} onChange={set('from')} />
        <TextField label="To" description="Empty: when the page opened" type="datetime-local" value={to} onChange={set('to')} />
      </div>
      <ErrorNotice error={report.error ?? agentNames.error} />
      {report.data && (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Decisions shadow rules would have changed</caption>
            <thead>
              <tr>
                <th scope="col">Rule</th>
                <th scope="col">Would change</th>
                <th scope="col">From → to</th>
                <th scope="col">Sample traces</th>
              </tr>
            </thead>
            <tbody>
              {report.data.data.map((entry) => (
                <tr key={entry.policy_rule_id}>
                  <td>
                    <Link to={`/policies/${entry.policy_rule_id}`}>{entry.policy_name}</Link>
                  </td>
                  <td>{entry.would_change}</td>
                  <td>
                    <ul className="plain">
                      {entry.transitions.map((transition) => (
                        <li key={`${transition.from} ${transition.to}`}>
                          <Transition from={transition.from} to={transition.to} />: {transition.count}
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td>
                    <TraceLinks traceIds={entry.sample_trace_ids} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {report.data.data.length === 0 && <p className="empty">No shadow rule would have changed a decision in this period.</p>}
        </div>
      )}
    </section>
  );
}
