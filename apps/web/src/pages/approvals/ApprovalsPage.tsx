import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { StatusBadge } from '../../ui/Badge';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { SelectField } from '../../ui/choices';
import { usePendingCount } from '../../ui/Layout';
import { PageHeader } from '../../ui/PageHeader';
import { useUrlFilters } from '../../ui/url-filters';
import { Pagination } from '../../ui/Pagination';
import { fromNow, Time } from '../../ui/Time';
import { DecideButtons } from './DecideButtons';
import { type Approval, type ApprovalStatus, approvalsKey, fetchAgentNames, fetchApprovals, PAGE_SIZE, STATUSES } from './queries';
import { quorumOf } from './votes';

const FILTERS = [
  ...STATUSES.map((status) => ({ id: status, label: status[0]!.toUpperCase() + status.slice(1) })),
  { id: 'all', label: 'All' },
];

/** The review queue: pending first by default, refreshing by itself, decisions right from the row. */
export function ApprovalsPage() {
  const { params, offset, set, goTo } = useUrlFilters();
  const filter = params.get('status') ?? 'pending';
  const status = STATUSES.includes(filter as ApprovalStatus) ? (filter as ApprovalStatus) : undefined;
  const pending = usePendingCount().data?.count;
  const approvals = useQuery({
    queryKey: [...approvalsKey, 'list', status ?? 'all', offset],
    queryFn: () => fetchApprovals(status, offset),
    refetchInterval: 10_000,
  });
  const agentNames = useQuery({ queryKey: ['agents', 'names'], queryFn: fetchAgentNames, staleTime: 60_000 });

  return (
    <section>
      <PageHeader title="Approvals">{pending === undefined ? '' : `${pending} pending`}</PageHeader>
      <div className="filters">
        <SelectField label="Status" options={FILTERS} value={filter} onChange={set('status')} />
      </div>
      <ErrorNotice error={approvals.error} />
      {approvals.isPending ? (
        <p className="muted">Loading…</p>
      ) : approvals.data ? (
        <>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Approval requests, {filter}</caption>
              <thead>
                <tr>
                  <th scope="col">Operation</th>
                  <th scope="col">Agent</th>
                  <th scope="col">Risk</th>
                  <th scope="col">Status</th>
                  <th scope="col">Requested</th>
                  <th scope="col">Expires or decided</th>
                  <th scope="col">Decide</th>
                </tr>
              </thead>
              <tbody>
                {approvals.data.data.map((approval) => (
                  <tr key={approval.id}>
                    <td>
                      <Link to={`/approvals/${approval.id}`}>{approval.requested_operation}</Link>
                      <div className="muted">
                        {approval.target_integration} · <span className="mono">{approval.resource_scope}</span> ·{' '}
                        {approval.data_classification}
                      </div>
                    </td>
                    <td>{agentNames.data?.get(approval.agent_id) ?? <span className="mono">{approval.agent_id}</span>}</td>
                    <td>
                      <StatusBadge value={approval.risk_classification} />
                    </td>
                    <td>
                      <StatusBadge value={approval.status} />
                      {approval.status === 'pending' && <QuorumProgress approval={approval} />}
                    </td>
                    <td>
                      <time dateTime={approval.requested_at}>{fromNow(approval.requested_at)}</time>
                    </td>
                    <td>
                      {approval.status === 'pending' ? (
                        <Time value={approval.expires_at} relativeToNow />
                      ) : approval.decided_at ? (
                        <>
                          <Time value={approval.decided_at} relativeToNow /> by {approval.approver_name}
                        </>
                      ) : (
                        <Time value={approval.expires_at} relativeToNow />
                      )}
                    </td>
                    <td>
                      <DecideButtons approval={approval} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {approvals.data.data.length === 0 && <p className="empty">No {filter === 'all' ? '' : `${filter} `}approval requests.</p>}
          </div>
          <Pagination total={approvals.data.pagination.total} limit={PAGE_SIZE} offset={offset} onChange={goTo} />
        </>
      ) : null}
    </section>
  );
}

/** "1/2" beside a pending request that needs several approvers; nothing for one that needs one. */
function QuorumProgress({ approval }: { approval: Pick<Approval, 'approvals_required' | 'votes'> }) {
  const quorum = quorumOf(approval);
  if (!quorum) return null;
  return (
    <span className="muted quorum" title={`${quorum.approvals} of ${quorum.required} approvals`}>
      {' '}
      {quorum.approvals}/{quorum.required}
      <span className="sr-only"> approvals</span>
    </span>
  );
}
