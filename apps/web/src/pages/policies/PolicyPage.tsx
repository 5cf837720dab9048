import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../../api/client';
import { useCan } from '../../session/session';
import { ActionDialog } from '../../ui/ActionDialog';
import { StatusBadge } from '../../ui/Badge';
import { Button } from '../../ui/Button';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { SelectField } from '../../ui/choices';
import { PageHeader } from '../../ui/PageHeader';
import { Time } from '../../ui/Time';
import { fetchAgentNames } from '../approvals/queries';
import { fetchRule, type Rule, type RuleBody } from './queries';
import { simulateLastWeek } from './simulation';
import { COMPARED_FIELDS, diffVersions } from './versions-diff';
import { RuleEditor, scopeOf, WhatIfResults } from './WhatIf';

export function PolicyPage() {
  const { id = '' } = useParams();
  const configure = useCan('configure');
  const [editing, setEditing] = useState(false);
  const queryClient = useQueryClient();
  const rule = useQuery({ queryKey: ['policies', id], queryFn: () => fetchRule(id) });
  const versions = useQuery({
    queryKey: ['policies', id, 'versions', rule.data?.data.policy_version],
    queryFn: () => unwrap(api.GET('/api/v1/policies/{id}/versions', { params: { path: { id }, query: { limit: 100, offset: 0 } } })),
  });
  const agentNames = useQuery({ queryKey: ['agents', 'names'], queryFn: fetchAgentNames, staleTime: 60_000 });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['policies'] });
  const update = useMutation({
    mutationFn: (body: Partial<RuleBody>) => unwrap(api.PATCH('/api/v1/policies/{id}', { params: { path: { id } }, body })),
    onSuccess: () => {
      setEditing(false);
      return refresh();
    },
  });

  const deactivationWhatIf = useMutation({
    mutationFn: (rule: Rule) => simulateLastWeek({ change: { action: 'delete', policy_rule_id: rule.id }, agentId: rule.agent_id }),
  });

  if (rule.isPending) return <p className="muted">Loading…</p>;
  if (rule.isError) return <ErrorNotice error={rule.error} />;
  const r = rule.data.data;
  const agents = [...(agentNames.data ?? new Map<string, string>())].map(([agentId, label]) => ({ id: agentId, label }));
  const deactivation = (
    <ActionDialog
      trigger="Deactivate"
      triggerTone="danger"
      title={`Deactivate ${r.policy_name}?`}
      confirm="Deactivate"
      confirmTone="danger"
      onConfirm={() =>
        unwrap(api.DELETE('/api/v1/policies/{id}', { params: { path: { id } } })).then(() => {
          deactivationWhatIf.reset();
          return refresh();
        })
      }
    >
      <p>The rule stops matching at once, for good; its history stays.</p>
    </ActionDialog>
  );
  return (
    <section>
      <PageHeader
        title={r.policy_name}
        actions={
          configure && (
            <>
              {!editing && <Button onPress={() => setEditing(true)}>Edit</Button>}
              {r.mode === 'shadow' && (
                <ActionDialog
                  trigger="Enforce"
                  title={`Enforce ${r.policy_name}?`}
                  confirm="Enforce"
                  onConfirm={() => update.mutateAsync({ mode: 'enforce' })}
                >
                  <p>
                    From now on the rule decides the actions it matches, as a new version. What it would have changed so far stays in the
                    shadow report.
                  </p>
                </ActionDialog>
              )}
              {/* While its what-if is open, deactivating is offered there. */}
              {r.is_active && !deactivationWhatIf.isSuccess && (
                <>
                  <Button isDisabled={deactivationWhatIf.isPending} onPress={() => deactivationWhatIf.mutate(r)}>
                    {deactivationWhatIf.isPending ? 'Previewing…' : 'What if I deactivate it?'}
                  </Button>
                  {deactivation}
                </>
              )}
            </>
          )
        }
      >
        <StatusBadge value={r.policy_effect} />
        {r.mode === 'shadow' && (
          <>
            {' '}
            <StatusBadge value="shadow" />
          </>
        )}{' '}
        version {r.policy_version}, {r.is_active ? 'active' : 'inactive'}
      </PageHeader>
      {editing && (
        <div className="card">
          <h2>Edit rule</h2>
          <RuleEditor
            agents={agents}
            initial={r as RuleBody}
            submitLabel="Save changes"
            error={update.error}
            isPending={update.isPending}
            onSubmit={(edited) => update.mutate(changedFields(r, edited))}
            ruleId={r.id}
            whatIf={(draft) => ({
              change: { action: 'update', policy_rule_id: r.id, rule: editableFields(draft) },
              agentId: r.agent_id,
            })}
          />
          <Button tone="quiet" onPress={() => setEditing(false)}>
            Cancel
          </Button>
        </div>
      )}
      <ErrorNotice error={deactivationWhatIf.error} />
      {deactivationWhatIf.isSuccess && r.is_active && (
        <div className="card">
          <WhatIfResults
            level={2}
            title={`What if ${r.policy_name} is deactivated`}
            simulation={deactivationWhatIf.data.data}
            draftName={r.policy_name}
            draftRuleId={r.id}
            scope={scopeOf(r.agent_id, agents)}
            actions={
              <>
                {deactivation}
                <Button onPress={() => deactivationWhatIf.reset()}>Keep it active</Button>
              </>
            }
          />
        </div>
      )}
      <div className="card">
        <dl className="facts">
          <dt>Agent</dt>
          <dd>
            <Link to={`/agents/${r.agent_id}`}>{agentNames.data?.get(r.agent_id) ?? r.agent_id}</Link>
          </dd>
          <dt>Matches</dt>
          <dd>
            {r.operation} on {r.target_integration}, <span className="mono">{r.resource_scope}</span>, {r.data_classification}
          </dd>
          <dt>Mode</dt>
          <dd>
            {r.mode === 'shadow' ? (
              <>
                shadow: never decides; what it would have changed is in the{' '}
                <Link to={`/policies/shadow-report?agent_id=${r.agent_id}`}>shadow report</Link>
              </>
            ) : (
              'enforce: decides the actions it matches'
            )}
          </dd>
          <dt>Priority</dt>
          <dd>{r.priority}</dd>
          <dt>Rationale</dt>
          <dd>{r.rationale}</dd>
          <dt>Conditions</dt>
          <dd className="mono">{r.conditions ? JSON.stringify(r.conditions) : 'none'}</dd>
          {r.policy_effect === 'approval_required' && (
            <>
              <dt>Approvals required</dt>
              <dd>{r.approvals_required === 1 ? '1 (one reviewer decides)' : `${r.approvals_required} distinct people`}</dd>
              <dt>Escalation</dt>
              <dd>{r.escalate_after_seconds === null ? 'none' : `after ${r.escalate_after_seconds} s still pending`}</dd>
            </>
          )}
          <dt>Approval time-to-live</dt>
          <dd>{r.max_session_ttl === null ? 'tenant default (86 400 s)' : `${r.max_session_ttl} s`}</dd>
          <dt>Modified</dt>
          <dd>
            <Time value={r.modified_at} /> by {r.modified_by}
          </dd>
        </dl>
      </div>
      <ErrorNotice error={versions.error} />
      {versions.data && <VersionHistory versions={versions.data.data} />}
    </section>
  );
}

type Version = { version: number; modified_by: string; modified_at: string; change_summary: string | null } & Record<string, unknown>;

/** Every version of the rule, and what changed between any two of them. */
function VersionHistory({ versions }: { versions: Version[] }) {
  const numbers = versions.map((v) => v.version).sort((a, b) => a - b);
  const [from, setFrom] = useState(String(numbers[0] ?? 1));
  const [to, setTo] = useState(String(numbers.at(-1) ?? 1));
  const byNumber = new Map(versions.map((v) => [String(v.version), v]));
  const options = numbers.map((n) => ({ id: String(n), label: `Version ${n}` }));
  const changes = byNumber.has(from) && byNumber.has(to) ? diffVersions(byNumber.get(from)!, byNumber.get(to)!) : [];
  return (
    <>
      <h2>History</h2>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Changed by</th>
              <th scope="col">When</th>
              <th scope="col">Summary</th>
            </tr>
          </thead>
          <tbody>
            {[...versions]
              .sort((a, b) => b.version - a.version)
              .map((v) => (
                <tr key={v.version}>
                  <td>{v.version}</td>
                  <td>{v.modified_by}</td>
                  <td>
                    <Time value={v.modified_at} />
                  </td>
                  <td>{v.change_summary ?? <span className="muted">—</span>}</td>
                </tr>
              ))}
          </tbody>
        </table>
      </div>
      <h2>Compare versions</h2>
      <div className="filters">
        <SelectField label="From version" options={options} value={from} onChange={setFrom} />
        <SelectField label="To version" options={options} value={to} onChange={setTo} />
      </div>
      <div className="table-wrap">
        <table aria-label={`Changes from version ${from} to version ${to}`}>
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Version {from}</th>
              <th scope="col">Version {to}</th>
            </tr>
          </thead>
          <tbody>
            {changes.map((change) => (
              <tr key={change.field}>
                <td>{change.field.replaceAll('_', ' ')}</td>
                <td className="mono">{change.before}</td>
                <td className="mono">{change.after}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {changes.length === 0 && <p className="empty">No differences.</p>}
      </div>
    </>
  );
}

/** Only what the form changed (the fields a rule's update takes are the ones its versions record). */
function changedFields(before: Record<string, unknown>, after: RuleBody): Partial<RuleBody> {
  const changed = COMPARED_FIELDS.filter((field) => JSON.stringify(after[field]) !== JSON.stringify(before[field]));
  return Object.fromEntries(changed.map((field) => [field, after[field]])) as Partial<RuleBody>;
}

/**
 * Every field a rule's update takes, as the draft has them: the what-if's update, which decides as
 * the changed fields alone would, and is never empty (an update of nothing is refused).
 */
function editableFields(draft: RuleBody): Partial<RuleBody> {
  return Object.fromEntries(COMPARED_FIELDS.map((field) => [field, draft[field]]));
}
