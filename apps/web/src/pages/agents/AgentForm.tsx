import { useState } from 'react';
import { Form } from 'react-aria-components';
import type { paths } from '@agov/sdk';
import { useSession } from '../../session/session';
import { Button } from '../../ui/Button';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { optionsOf, SelectField } from '../../ui/choices';
import { fieldErrors, optionalNumberOf, optionalNumberText, TextField } from '../../ui/fields';

export type AgentBody = paths['/api/v1/agents']['post']['requestBody']['content']['application/json'];
type Integration = AgentBody['authorized_integrations'][number];

export const ENVIRONMENTS = ['dev', 'test', 'prod'] as const;
export const AUTHORITY_MODELS = ['self', 'delegated', 'hybrid'] as const;
const IDENTITY_MODES = ['service_identity', 'delegated_identity', 'hybrid_identity'] as const;
const DELEGATION_MODELS = ['self', 'on_behalf_of_user', 'on_behalf_of_owner', 'mixed'] as const;
export const AUTONOMY_TIERS = ['low', 'medium', 'high'] as const;
export const CLASSIFICATIONS = ['public', 'internal', 'confidential', 'restricted'] as const;

const THROTTLE_EFFECTS = ['deny', 'approval_required'] as const;

const NEW_INTEGRATION: Integration = { name: '', resource_scope: '', data_classification: 'internal', allowed_operations: [] };

/** A new agent's fields, or an existing one's to edit; the signed-in user signs the change. */
export function AgentForm({
  initial,
  submitLabel,
  error,
  isPending,
  onSubmit,
}: {
  initial?: AgentBody;
  submitLabel: string;
  error: unknown;
  isPending: boolean;
  onSubmit: (body: AgentBody) => void;
}) {
  const { user } = useSession();
  const [agent, setAgent] = useState<AgentBody>(
    initial ?? {
      name: '',
      description: '',
      owner_name: user.name,
      owner_role: '',
      team: '',
      environment: 'dev',
      authority_model: 'delegated',
      identity_mode: 'service_identity',
      delegation_model: 'on_behalf_of_owner',
      autonomy_tier: 'medium',
      authorized_integrations: [{ ...NEW_INTEGRATION }],
      credential_config: null,
      metadata: null,
      next_review_date: new Date(Date.now() + 90 * 86_400_000).toISOString().slice(0, 10),
      created_by: user.email,
      modified_by: user.email,
      modified_at: new Date().toISOString(),
    },
  );
  const [perMinute, setPerMinute] = useState(optionalNumberText(initial?.max_requests_per_minute));
  const [identicalPerMinute, setIdenticalPerMinute] = useState(optionalNumberText(initial?.max_identical_requests_per_minute));
  const errors = fieldErrors(error);
  const set =
    <K extends keyof AgentBody>(field: K) =>
    (value: AgentBody[K]) =>
      setAgent({ ...agent, [field]: value });
  const setIntegration = (index: number, change: Partial<Integration>) =>
    set('authorized_integrations')(agent.authorized_integrations.map((item, i) => (i === index ? { ...item, ...change } : item)));

  return (
    <Form
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit({
          ...agent,
          max_requests_per_minute: optionalNumberOf(perMinute),
          max_identical_requests_per_minute: optionalNumberOf(identicalPerMinute),
          modified_by: user.email,
          modified_at: new Date().toISOString(),
        });
      }}
    >
      <div className="grid">
        <TextField label="Name" isRequired value={agent.name} onChange={set('name')} error={errors.name} />
        <TextField label="Team" isRequired value={agent.team} onChange={set('team')} error={errors.team} />
        <TextField label="Owner" isRequired value={agent.owner_name} onChange={set('owner_name')} error={errors.owner_name} />
        <TextField label="Owner's role" isRequired value={agent.owner_role} onChange={set('owner_role')} error={errors.owner_role} />
        <SelectField
          label="Environment"
          options={optionsOf(ENVIRONMENTS)}
          value={agent.environment}
          onChange={(v) => set('environment')(v as AgentBody['environment'])}
        />
        <SelectField
          label="Autonomy tier"
          options={optionsOf(AUTONOMY_TIERS)}
          value={agent.autonomy_tier}
          onChange={(v) => set('autonomy_tier')(v as AgentBody['autonomy_tier'])}
        />
        <SelectField
          label="Authority model"
          options={optionsOf(AUTHORITY_MODELS)}
          value={agent.authority_model}
          onChange={(v) => set('authority_model')(v as AgentBody['authority_model'])}
        />
        <SelectField
          label="Identity mode"
          options={optionsOf(IDENTITY_MODES)}
          value={agent.identity_mode}
          onChange={(v) => set('identity_mode')(v as AgentBody['identity_mode'])}
        />
        <SelectField
          label="Delegation model"
          options={optionsOf(DELEGATION_MODELS)}
          value={agent.delegation_model}
          onChange={(v) => set('delegation_model')(v as AgentBody['delegation_model'])}
        />
        <TextField
          label="Next review"
          type="date"
          isRequired
          value={agent.next_review_date}
          onChange={set('next_review_date')}
          error={errors.next_review_date}
        />
      </div>
      <fieldset className="card">
        <legend>Throttle</legend>
        <div className="grid">
          <TextField
            label="Requests per minute"
            description="More in any minute get the throttle's decision. Empty: no limit"
            type="number"
            value={perMinute}
            onChange={setPerMinute}
            error={errors.max_requests_per_minute}
          />
          <TextField
            label="Identical requests per minute"
            description="The loop guard: the same action, context included. Empty: no limit"
            type="number"
            value={identicalPerMinute}
            onChange={setIdenticalPerMinute}
            error={errors.max_identical_requests_per_minute}
          />
          <SelectField
            label="Past a limit"
            options={optionsOf(THROTTLE_EFFECTS)}
            value={agent.throttle_effect ?? 'deny'}
            onChange={(v) => set('throttle_effect')(v as AgentBody['throttle_effect'])}
          />
        </div>
      </fieldset>
      <TextField
        label="Description"
        multiline
        rows={2}
        value={agent.description}
        onChange={set('description')}
        error={errors.description}
      />
      <fieldset className="card">
        <legend>Authorized integrations</legend>
        {agent.authorized_integrations.map((integration, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity of their own until saved.
          <div className="grid" key={index}>
            <TextField
              label={`Integration ${index + 1}`}
              isRequired
              value={integration.name}
              onChange={(name) => setIntegration(index, { name })}
              error={errors[`authorized_integrations.${index}.name`]}
            />
            <TextField
              label={`Resource scope ${index + 1}`}
              isRequired
              value={integration.resource_scope}
              onChange={(resource_scope) => setIntegration(index, { resource_scope })}
              error={errors[`authorized_integrations.${index}.resource_scope`]}
            />
            <SelectField
              label={`Classification ${index + 1}`}
              options={optionsOf(CLASSIFICATIONS)}
              value={integration.data_classification}
              onChange={(value) => setIntegration(index, { data_classification: value as Integration['data_classification'] })}
            />
            <TextField
              label={`Operations ${index + 1}`}
              description="Comma-separated, e.g. read, write"
              value={integration.allowed_operations.join(', ')}
              onChange={(value) =>
                setIntegration(index, {
                  allowed_operations: value
                    .split(',')
                    .map((op) => op.trim())
                    .filter(Boolean),
                })
              }
              error={errors[`authorized_integrations.${index}.allowed_operations`]}
            />
            <Button
              tone="quiet"
              onPress={() => set('authorized_integrations')(agent.authorized_integrations.filter((_, i) => i !== index))}
            >
              Remove integration {index + 1}
            </Button>
          </div>
        ))}
        <Button onPress={() => set('authorized_integrations')([...agent.authorized_integrations, { ...NEW_INTEGRATION }])}>
          Add integration
        </Button>
      </fieldset>
      <ErrorNotice error={error} />
      <Button type="submit" tone="primary" isDisabled={isPending}>
        {submitLabel}
      </Button>
    </Form>
  );
}
