import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { downloadUrl } from '../../api/client';
import { useCan } from '../../session/session';
import { StatusBadge } from '../../ui/Badge';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { PageHeader } from '../../ui/PageHeader';
import { Time } from '../../ui/Time';
import { ChainBadge } from './ChainBadge';
import { EventTimeline } from './EventTimeline';
import { fetchTrace, tracesKey } from './queries';
import { resultDigestOf, toolCallOf } from './tool-call';
import { ToolCallPanel } from './ToolCallPanel';

export function TracePage() {
  const { id = '' } = useParams();
  const trace = useQuery({ queryKey: [...tracesKey, id], queryFn: () => fetchTrace(id) });
  const canExport = useCan('decide');

  if (trace.isPending) return <p className="muted">Loading…</p>;
  if (trace.isError) return <ErrorNotice error={trace.error} />;
  const t = trace.data;
  const toolCall = toolCallOf(t);
  return (
    <section>
      <PageHeader
        title={`Trace: ${t.requested_operation}`}
        actions={
          canExport && (
            <a className="button button-secondary" href={downloadUrl(`/api/v1/traces/${t.id}/export`)} download>
              Export JSON
            </a>
          )
        }
      >
        <span className="mono">{t.id}</span>
      </PageHeader>
      <div className="grid">
        <div className="card">
          <dl className="facts">
            <dt>Outcome</dt>
            <dd>
              <StatusBadge value={t.final_outcome} />
            </dd>
            <dt>Integrity</dt>
            <dd>
              <ChainBadge traceId={t.id} eventCount={t.events.length} />
            </dd>
            <dt>Agent</dt>
            <dd>
              <Link to={`/agents/${t.agent_id}`}>{t.agent_name}</Link> ({t.authority_model})
            </dd>
            <dt>Integration</dt>
            <dd>{t.target_integration}</dd>
            <dt>Resource</dt>
            <dd className="mono">{t.resource_scope}</dd>
            <dt>Started</dt>
            <dd>
              <Time value={t.started_at} />
            </dd>
            <dt>Completed</dt>
            <dd>
              <Time value={t.completed_at} />
              {t.duration_ms !== null && <span className="muted"> ({t.duration_ms} ms)</span>}
            </dd>
            {t.parent_trace_id && (
              <>
                <dt>Parent trace</dt>
                <dd>
                  <Link to={`/traces/${t.parent_trace_id}`}>{t.parent_trace_id}</Link>
                </dd>
              </>
            )}
          </dl>
        </div>
        {t.approval_requests.length > 0 && (
          <div className="card">
            <h2>Approval requests</h2>
            <ul>
              {t.approval_requests.map((approval) => (
                <li key={approval.id}>
                  <Link to={`/approvals/${approval.id}`}>{approval.status}</Link>
                  {approval.approver_name && <> by {approval.approver_name}</>}
                  {approval.decided_at && (
                    <>
                      , <Time value={approval.decided_at} />
                    </>
                  )}
                </li>
              ))}
            </ul>
          </div>
        )}
      </div>
      {toolCall && <ToolCallPanel call={toolCall} resultDigest={resultDigestOf(t)} />}
      <h2>Events</h2>
      <EventTimeline events={t.events} />
    </section>
  );
}
