import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, unwrap } from '../../api/client';
import { useCan } from '../../session/session';
import { StatusBadge } from '../../ui/Badge';
import { Button } from '../../ui/Button';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { SelectField } from '../../ui/choices';
import { TextField } from '../../ui/fields';
import { PageHeader } from '../../ui/PageHeader';
import { ANY, useUrlFilters } from '../../ui/url-filters';
import { Pagination } from '../../ui/Pagination';
import { AgentForm, type AgentBody, AUTHORITY_MODELS, AUTONOMY_TIERS, ENVIRONMENTS } from './AgentForm';

const PAGE_SIZE = 20;
const LIFECYCLE = ['active', 'suspended', 'revoked'] as const;
const choices = (label: string, values: readonly string[]) => [{ id: ANY, label }, ...values.map((value) => ({ id: value, label: value }))];

export function AgentsPage() {
  const { params, offset, picked, set, goTo } = useUrlFilters();
  const configure = useCan('configure');
  const [creating, setCreating] = useState(false);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const filters = picked(['environment', 'lifecycle_state', 'authority_model', 'autonomy_tier', 'search']);
  const agents = useQuery({
    queryKey: ['agents', 'list', filters, offset],
    queryFn: () => unwrap(api.GET('/api/v1/agents', { params: { query: { ...filters, limit: PAGE_SIZE, offset } } })),
  });
  const create = useMutation({
    mutationFn: (body: AgentBody) => unwrap(api.POST('/api/v1/agents', { body })),
    onSuccess: ({ data }) => {
      void queryClient.invalidateQueries({ queryKey: ['agents'] });
      navigate(`/agents/${data.id}`);
    },
  });

  return (
    <section>
      <PageHeader
        title="Agents"
        actions={
          configure &&
          !creating && (
            <Button tone="primary" onPress={() => setCreating(true)}>
              New agent
            </Button>
          )
        }
      >
        The AI agents that ask before they act.
      </PageHeader>
      {creating && (
        <div className="card">
          <h2>New agent</h2>
          <AgentForm
            submitLabel="Create agent"
            error={create.error}
            isPending={create.isPending}
            onSubmit={(body) => create.mutate(body)}
          />
        </div>
      )}
      <div className="filters">
        <TextField label="Search" type="search" value={params.get('search') ?? ''} onChange={set('search')} />
        <SelectField
          label="Environment"
          options={choices('Any environment', ENVIRONMENTS)}
          value={params.get('environment') ?? ANY}
          onChange={set('environment')}
        />
        <SelectField
          label="State"
          options={choices('Any state', LIFECYCLE)}
          value={params.get('lifecycle_state') ?? ANY}
          onChange={set('lifecycle_state')}
        />
        <SelectField
          label="Authority"
          options={choices('Any authority', AUTHORITY_MODELS)}
          value={params.get('authority_model') ?? ANY}
          onChange={set('authority_model')}
        />
        <SelectField
          label="Autonomy"
          options={choices('Any tier', AUTONOMY_TIERS)}
          value={params.get('autonomy_tier') ?? ANY}
          onChange={set('autonomy_tier')}
        />
      </div>
      <ErrorNotice error={agents.error} />
      {agents.data && (
        <>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Agents</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Environment</th>
                  <th scope="col">Team</th>
                  <th scope="col">Owner</th>
                  <th scope="col">Autonomy</th>
                  <th scope="col">State</th>
                  <th scope="col">Next review</th>
                </tr>
              </thead>
              <tbody>
                {agents.data.data.map((agent) => (
                  <tr key={agent.id}>
                    <td>
                      <Link to={`/agents/${agent.id}`}>{agent.name}</Link>
                    </td>
                    <td>{agent.environment}</td>
                    <td>{agent.team}</td>
                    <td>{agent.owner_name}</td>
                    <td>{agent.autonomy_tier}</td>
                    <td>
                      <StatusBadge value={agent.lifecycle_state} />
                    </td>
                    <td>{agent.next_review_date}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {agents.data.data.length === 0 && <p className="empty">No agents match.</p>}
          </div>
          <Pagination total={agents.data.pagination.total} limit={PAGE_SIZE} offset={offset} onChange={goTo} />
        </>
      )}
    </section>
  );
}
