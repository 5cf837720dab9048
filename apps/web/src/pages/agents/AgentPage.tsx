import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../../api/client';
import { useCan } from '../../session/session';
import { ActionDialog } from '../../ui/ActionDialog';
import { StatusBadge } from '../../ui/Badge';
import { Button } from '../../ui/Button';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { PageHeader } from '../../ui/PageHeader';
import { Time } from '../../ui/Time';
import { AgentForm, type AgentBody } from './AgentForm';
import { Budgets } from './Budgets';

type Transition = 'suspend' | 'revoke' | 'reactivate';

/** What each state may become, and what to tell the admin before it does. */
const TRANSITIONS: Record<string, { action: Transition; label: string; explain: string }[]> = {
  active: [
    { action: 'suspend', label: 'Suspend', explain: 'Every evaluation is denied until the agent is reactivated.' },
    { action: 'revoke', label: 'Revoke', explain: 'Every evaluation is denied, for good: a revoked agent cannot be reactivated.' },
  ],
  suspended: [
    { action: 'reactivate', label: 'Reactivate', explain: 'Its rules apply again from the next evaluation.' },
    { action: 'revoke', label: 'Revoke', explain: 'Every evaluation is denied, for good: a revoked agent cannot be reactivated.' },
  ],
  revoked: [],
};

export function AgentPage() {
  const { id = '' } = useParams();
  const configure = useCan('configure');
  const [editing, setEditing] = useState(false);
  const queryClient = useQueryClient();
  const agent = useQuery({ queryKey: ['agents', id], queryFn: () => unwrap(api.GET('/api/v1/agents/{id}', { params: { path: { id } } })) });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['agents'] });
  const update = useMutation({
    mutationFn: (body: Partial<AgentBody>) => unwrap(api.PATCH('/api/v1/agents/{id}', { params: { path: { id } }, body })),
    onSuccess: () => {
      setEditing(false);
      return refresh();
    },
  });
  const transition = (action: Transition) => {
    const path = { params: { path: { id } } };
    const call =
      action === 'suspend'
        ? api.POST('/api/v1/agents/{id}/suspend', path)
        : action === 'revoke'
          ? api.POST('/api/v1/agents/{id}/revoke', path)
          : api.POST('/api/v1/agents/{id}/reactivate', path);
    return unwrap(call).then(refresh);
  };

  if (agent.isPending) return <p className="muted">Loading…</p>;
  if (agent.isError) return <ErrorNotice error={agent.error} />;
  const { stats, created_at: _created, lifecycle_state, id: _id, ...editable } = agent.data.data;
  const a = agent.data.data;
  return (
    <section>
      <PageHeader
        title={a.name}
        actions={
          configure && (
            <>
              {!editing && a.lifecycle_state !== 'revoked' && <Button onPress={() => setEditing(true)}>Edit</Button>}
              {TRANSITIONS[lifecycle_state]!.map((t) => (
                <ActionDialog
                  key={t.action}
                  trigger={t.label}
                  triggerTone={t.action === 'reactivate' ? 'secondary' : 'danger'}
                  title={`${t.label} ${a.name}?`}
                  confirm={t.label}
                  confirmTone={t.action === 'reactivate' ? 'primary' : 'danger'}
                  onConfirm={() => transition(t.action)}
                >
                  <p>{t.explain}</p>
                </ActionDialog>
              ))}
            </>
          )
        }
      >
        <StatusBadge value={a.lifecycle_state} /> {a.description}
      </PageHeader>
      {editing && (
        <div className="card">
          <h2>Edit agent</h2>
          <AgentForm
            initial={editable as AgentBody}
            submitLabel="Save changes"
            error={update.error}
            isPending={update.isPending}
            onSubmit={(body) => update.mutate(changedFields(editable as AgentBody, body))}
          />
          <Button tone="quiet" onPress={() => setEditing(false)}>
            Cancel
          </Button>
        </div>
      )}
      <div className="grid">
        <div className="card">
          <h2>Identity</h2>
          <dl className="facts">
            <dt>Environment</dt>
            <dd>{a.environment}</dd>
            <dt>Team</dt>
            <dd>{a.team}</dd>
            <dt>Owner</dt>
            <dd>
              {a.owner_name} ({a.owner_role})
            </dd>
            <dt>Authority</dt>
            <dd>
              {a.authority_model}, {a.identity_mode}, {a.delegation_model}
            </dd>
            <dt>Autonomy</dt>
            <dd>{a.autonomy_tier}</dd>
            <dt>Next review</dt>
            <dd>{a.next_review_date}</dd>
            <dt>Throttle</dt>
            <dd className="throttle">{throttleText(a)}</dd>
            <dt>Modified</dt>
            <dd>
              <Time value={a.modified_at} /> by {a.modified_by}
            </dd>
          </dl>
        </div>
        <div className="card">
          <h2>Activity</h2>
          <dl className="facts">
            <dt>Traces</dt>
            <dd>{stats.trace_count}</dd>
            <dt>Last 24 hours</dt>
            <dd>
              {stats.decisions_last_24h.allow} allowed, {stats.decisions_last_24h.approval_required} held for approval,{' '}
              {stats.decisions_last_24h.deny} denied
            </dd>
            <dt>Approvals</dt>
            <dd>
              {stats.approval_counts.pending} pending, {stats.approval_counts.approved} approved, {stats.approval_counts.denied} denied,{' '}
              {stats.approval_counts.expired} expired
            </dd>
          </dl>
          <p>
            <Link to={`/policies?agent_id=${a.id}`}>Its policy rules</Link> · <Link to={`/traces?agent_id=${a.id}`}>All its traces</Link>
          </p>
        </div>
      </div>
      <h2>Authorized integrations</h2>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Integration</th>
              <th scope="col">Resource scope</th>
              <th scope="col">Classification</th>
              <th scope="col">Operations</th>
            </tr>
          </thead>
          <tbody>
            {a.authorized_integrations.map((integration) => (
              <tr key={`${integration.name} ${integration.resource_scope}`}>
                <td>{integration.name}</td>
                <td className="mono">{integration.resource_scope}</td>
                <td>{integration.data_classification}</td>
                <td>{integration.allowed_operations.join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Budgets budgets={stats.budgets} />
      <h2>Recent traces</h2>
      {stats.recent_traces.length === 0 ? (
        <p className="muted">No evaluations yet.</p>
      ) : (
        <ul>
          {stats.recent_traces.map((trace) => (
            <li key={trace.id}>
              <Link to={`/traces/${trace.id}`}>
                {trace.requested_operation} on {trace.target_integration}
              </Link>{' '}
              <StatusBadge value={trace.final_outcome} /> <Time value={trace.started_at} relativeToNow />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Only what the form changed, so an edit never rewrites fields someone else changed meanwhile. */
function changedFields(before: AgentBody, after: AgentBody): Partial<AgentBody> {
  const changed = Object.entries(after).filter(
    ([field, value]) => JSON.stringify(value) !== JSON.stringify(before[field as keyof AgentBody]),
  );
  return Object.fromEntries(changed) as Partial<AgentBody>;
}

/** The agent's limits in a line: "none", or each limit and what a request past it gets. */
function throttleText(agent: {
  max_requests_per_minute: number | null;
  max_identical_requests_per_minute: number | null;
  throttle_effect: string;
}) {
  const limits = [
    agent.max_requests_per_minute === null ? null : `${agent.max_requests_per_minute} requests a minute`,
    agent.max_identical_requests_per_minute === null ? null : `${agent.max_identical_requests_per_minute} identical requests a minute`,
  ].filter((limit) => limit !== null);
  return limits.length === 0 ? 'none' : `${limits.join(', ')}; past a limit: ${agent.throttle_effect.replace('_', ' ')}`;
}
