import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../../api/client';
import { StatusBadge } from '../../ui/Badge';
import { CopyButton } from '../../ui/CopyButton';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { PageHeader } from '../../ui/PageHeader';
import { Time } from '../../ui/Time';
import { ChainBadge } from '../traces/ChainBadge';
import { EventTimeline } from '../traces/EventTimeline';
import { fetchTrace, tracesKey } from '../traces/queries';
import { resultDigestOf, toolCallIn } from '../traces/tool-call';
import { type GrantStatus, grantStatusOf } from './grant-status';
import { ToolCallPanel } from '../traces/ToolCallPanel';
import { DecideButtons } from './DecideButtons';
import { DecisionCard } from './DecisionCard';
import { DelegatedVotes } from './DelegatedVotes';
import { approvalsKey, fetchApproval } from './queries';

/** Where e-mail and chat links land: everything a reviewer needs to decide, and the decision once made. */
export function ApprovalPage() {
  const { id = '' } = useParams();
  const approval = useQuery({
    queryKey: [...approvalsKey, id],
    queryFn: () => fetchApproval(id),
    // While it waits, it may be decided elsewhere (Slack, another reviewer) or expire.
    refetchInterval: (query) => (query.state.data?.data.status === 'pending' ? 5_000 : false),
  });
  const request = approval.data?.data;
  const agent = useQuery({
    queryKey: ['agents', request?.agent_id],
    queryFn: () => unwrap(api.GET('/api/v1/agents/{id}', { params: { path: { id: request!.agent_id } } })),
    enabled: Boolean(request),
  });
  const trace = useQuery({
    queryKey: [...tracesKey, request?.trace_id, request?.status],
    queryFn: () => fetchTrace(request!.trace_id),
    enabled: Boolean(request),
  });

  if (approval.isPending) return <p className="muted">Loading…</p>;
  if (approval.isError) return <ErrorNotice error={approval.error} />;
  const a = approval.data.data;
  const agentName = agent.data?.data.name;
  const toolCall = toolCallIn(a.target_integration, a.context_snapshot);
  return (
    <section>
      <PageHeader
        title={`Approval: ${a.requested_operation}`}
        actions={
          <>
            <DecideButtons approval={a} />
            <DelegatedVotes approval={a} />
          </>
        }
      >
        <StatusBadge value={a.status} /> requested <Time value={a.requested_at} relativeToNow />
      </PageHeader>
      {toolCall && <ToolCallPanel call={toolCall} resultDigest={trace.data && resultDigestOf(trace.data)} />}
      <div className="grid">
        <div className="card">
          <h2>Request</h2>
          <dl className="facts">
            <dt>Agent</dt>
            <dd>
              <Link to={`/agents/${a.agent_id}`}>{agentName ?? a.agent_id}</Link>
              {agent.data && (
                <span className="muted">
                  {' '}
                  ({agent.data.data.environment}, owner {agent.data.data.owner_name})
                </span>
              )}
            </dd>
            <dt>Operation</dt>
            <dd>{a.requested_operation}</dd>
            <dt>Integration</dt>
            <dd>{a.target_integration}</dd>
            <dt>Resource</dt>
            <dd className="mono">{a.resource_scope}</dd>
            <dt>Classification</dt>
            <dd>{a.data_classification}</dd>
            <dt>Risk</dt>
            <dd>
              <StatusBadge value={a.risk_classification} />
            </dd>
            <dt>Authority</dt>
            <dd>
              {a.authority_model}, on behalf of {a.delegated_from}
            </dd>
            <dt>Expires</dt>
            <dd>
              <Time value={a.expires_at} />
            </dd>
          </dl>
        </div>
        <DecisionCard approval={a} />
      </div>
      <h2>Context the agent sent</h2>
      <pre className="json">{JSON.stringify(a.context_snapshot, null, 2)}</pre>
      <dl className="facts action-digest">
        <dt>Action digest</dt>
        <dd>
          <code>{a.action_digest}</code> <CopyButton value={a.action_digest} label="Copy digest" />
        </dd>
        <dt>Execution grant</dt>
        <dd>
          <GrantStatusText status={grantStatusOf(a, new Date())} />
        </dd>
      </dl>
      <p className="muted">
        SHA-256 of the agent, operation, integration, resource, classification and this context: a tool can check that the action it runs
        has this digest. An approved request carries a signed grant for this action, which a tool verifies offline and may redeem once.
      </p>
      <h2>
        Trace <Link to={`/traces/${a.trace_id}`}>open</Link>
      </h2>
      {trace.data && (
        <>
          <p>
            <StatusBadge value={trace.data.final_outcome} /> <ChainBadge traceId={a.trace_id} eventCount={trace.data.events.length} />
          </p>
          <EventTimeline events={trace.data.events} />
        </>
      )}
      <ErrorNotice error={trace.error ?? agent.error} />
    </section>
  );
}

function GrantStatusText({ status }: { status: GrantStatus }) {
  switch (status.kind) {
    case 'none':
      return <span className="muted">None (issued when the request is approved)</span>;
    case 'unused':
      return (
        <>
          Issued, not redeemed; expires <Time value={status.expiresAt} />
        </>
      );
    case 'expired':
      return (
        <>
          Expired unredeemed at <Time value={status.at} />
        </>
      );
    case 'redeemed':
      return (
        <>
          Redeemed <Time value={status.at} />
        </>
      );
  }
}
