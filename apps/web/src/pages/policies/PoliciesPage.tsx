import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, unwrap } from '../../api/client';
import { useCan, useSession } from '../../session/session';
import { StatusBadge } from '../../ui/Badge';
import { Button } from '../../ui/Button';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { SelectField } from '../../ui/choices';
import { TextField } from '../../ui/fields';
import { PageHeader } from '../../ui/PageHeader';
import { ANY, useUrlFilters } from '../../ui/url-filters';
import { Pagination } from '../../ui/Pagination';
import { fetchAgentNames } from '../approvals/queries';
import { DryRunTester } from './DryRunTester';
import { EFFECTS, type RuleBody } from './queries';
import { RuleEditor } from './WhatIf';

const PAGE_SIZE = 20;

export function PoliciesPage() {
  const { params, offset, picked, set, goTo } = useUrlFilters();
  const configure = useCan('configure');
  const { user } = useSession();
  const [creating, setCreating] = useState(false);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const filters = picked(['agent_id', 'effect', 'data_classification', 'is_active', 'search']);
  const agentNames = useQuery({ queryKey: ['agents', 'names'], queryFn: fetchAgentNames, staleTime: 60_000 });
  const rules = useQuery({
    queryKey: ['policies', 'list', filters, offset],
    queryFn: () => unwrap(api.GET('/api/v1/policies', { params: { query: { ...filters, limit: PAGE_SIZE, offset } } })),
  });
  const create = useMutation({
    mutationFn: (body: RuleBody) => unwrap(api.POST('/api/v1/policies', { body })),
    onSuccess: ({ data }) => {
      void queryClient.invalidateQueries({ queryKey: ['policies'] });
      navigate(`/policies/${data.id}`);
    },
  });
  const agents = [...(agentNames.data ?? new Map<string, string>())].map(([id, label]) => ({ id, label }));
  const agentId = params.get('agent_id') ?? agents[0]?.id ?? '';

  return (
    <section>
      <PageHeader
        title="Policies"
        actions={
          <>
            <Link className="button button-secondary" to="/policies/shadow-report">
              Shadow report
            </Link>
            {configure && !creating && agents.length > 0 && (
              <Button tone="primary" onPress={() => setCreating(true)}>
                New rule
              </Button>
            )}
          </>
        }
      >
        Each agent's rules, highest priority first; the first that matches decides.
      </PageHeader>
      {creating && (
        <div className="card">
          <h2>New rule</h2>
          <RuleEditor
            agents={agents}
            initial={{
              agent_id: agentId,
              policy_name: '',
              target_integration: '*',
              operation: '*',
              resource_scope: '*',
              data_classification: 'internal',
              policy_effect: 'approval_required',
              rationale: '',
              priority: 100,
              conditions: null,
              max_session_ttl: null,
              approvals_required: 1,
              escalate_after_seconds: null,
              mode: 'enforce',
              modified_by: user.email,
              modified_at: new Date().toISOString(),
            }}
            submitLabel="Create rule"
            error={create.error}
            isPending={create.isPending}
            onSubmit={(body) => create.mutate(body)}
            whatIf={(draft) => ({ change: { action: 'create', rule: draft }, agentId: draft.agent_id })}
          />
        </div>
      )}
      <div className="filters">
        <SelectField
          label="Agent"
          options={[{ id: ANY, label: 'Every agent' }, ...agents]}
          value={params.get('agent_id') ?? ANY}
          onChange={set('agent_id')}
        />
        <SelectField
          label="Effect"
          options={[{ id: ANY, label: 'Any effect' }, ...EFFECTS.map((e) => ({ id: e, label: e.replaceAll('_', ' ') }))]}
          value={params.get('effect') ?? ANY}
          onChange={set('effect')}
        />
        <SelectField
          label="Active"
          options={[
            { id: ANY, label: 'Active or not' },
            { id: 'true', label: 'Active' },
            { id: 'false', label: 'Inactive' },
          ]}
          value={params.get('is_active') ?? ANY}
          onChange={set('is_active')}
        />
        <TextField label="Search" type="search" value={params.get('search') ?? ''} onChange={set('search')} />
      </div>
      <ErrorNotice error={rules.error ?? agentNames.error} />
      {rules.data && (
        <>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Policy rules</caption>
              <thead>
                <tr>
                  <th scope="col">Rule</th>
                  <th scope="col">Agent</th>
                  <th scope="col">Matches</th>
                  <th scope="col">Effect</th>
                  <th scope="col">Priority</th>
                  <th scope="col">Active</th>
                  <th scope="col">Version</th>
                </tr>
              </thead>
              <tbody>
                {rules.data.data.map((rule) => (
                  <tr key={rule.id}>
                    <td>
                      <Link to={`/policies/${rule.id}`}>{rule.policy_name}</Link>
                    </td>
                    <td>{agentNames.data?.get(rule.agent_id) ?? rule.agent_id}</td>
                    <td>
                      {rule.operation} on {rule.target_integration} · <span className="mono">{rule.resource_scope}</span> ·{' '}
                      {rule.data_classification}
                    </td>
                    <td>
                      <StatusBadge value={rule.policy_effect} />
                      {rule.mode === 'shadow' && (
                        <>
                          {' '}
                          <StatusBadge value="shadow" />
                        </>
                      )}
                    </td>
                    <td>{rule.priority}</td>
                    <td>{rule.is_active ? 'yes' : 'no'}</td>
                    <td>{rule.policy_version}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {rules.data.data.length === 0 && <p className="empty">No rules match.</p>}
          </div>
          <Pagination total={rules.data.pagination.total} limit={PAGE_SIZE} offset={offset} onChange={goTo} />
        </>
      )}
      {agents.length > 0 && <DryRunTester agents={agents} agentId={agentId} />}
    </section>
  );
}
