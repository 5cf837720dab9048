import { useState } from 'react';
import { Form } from 'react-aria-components';
import { useSession } from '../../session/session';
import { Button } from '../../ui/Button';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { fieldErrors, type Option, optionsOf, SelectField, TextField } from '../../ui/fields';
import { CLASSIFICATIONS } from '../agents/AgentForm';
import { EFFECTS, type RuleBody } from './queries';

interface RuleFormProps {
  agents: Option[];
  initial: RuleBody;
  submitLabel: string;
  error: unknown;
  isPending: boolean;
  onSubmit: (body: RuleBody) => void;
}

/** A rule's fields; conditions are JSON Logic, checked for being JSON before they are sent. */
export function RuleForm({ agents, initial, submitLabel, error, isPending, onSubmit }: RuleFormProps) {
  const { user } = useSession();
  const [rule, setRule] = useState(initial);
  const [conditions, setConditions] = useState(initial.conditions ? JSON.stringify(initial.conditions, null, 2) : '');
  const [conditionsError, setConditionsError] = useState<string | undefined>();
  const [ttl, setTtl] = useState(initial.max_session_ttl === null ? '' : String(initial.max_session_ttl));
  const errors = fieldErrors(error);
  const set =
    <K extends keyof typeof rule>(field: K) =>
    (value: (typeof rule)[K]) =>
      setRule({ ...rule, [field]: value });

  return (
    <Form
      onSubmit={(event) => {
        event.preventDefault();
        let parsed: RuleBody['conditions'] = null;
        if (conditions.trim()) {
          try {
            parsed = JSON.parse(conditions);
          } catch {
            setConditionsError('is not valid JSON');
            return;
          }
        }
        setConditionsError(undefined);
        onSubmit({
          ...rule,
          conditions: parsed,
          max_session_ttl: ttl.trim() ? Number(ttl) : null,
          modified_by: user.email,
          modified_at: new Date().toISOString(),
        });
      }}
    >
      <div className="grid">
        <SelectField label="Agent" options={agents} value={rule.agent_id} onChange={set('agent_id')} error={errors.agent_id} />
        <TextField label="Rule name" isRequired value={rule.policy_name} onChange={set('policy_name')} error={errors.policy_name} />
        <TextField
          label="Integration"
          description="* matches every integration"
          isRequired
          value={rule.target_integration}
          onChange={set('target_integration')}
          error={errors.target_integration}
        />
        <TextField
          label="Operation"
          description="* matches every operation"
          isRequired
          value={rule.operation}
          onChange={set('operation')}
          error={errors.operation}
        />
        <TextField
          label="Resource scope"
          description="e.g. repo/* "
          isRequired
          value={rule.resource_scope}
          onChange={set('resource_scope')}
          error={errors.resource_scope}
        />
        <SelectField
          label="Classification"
          options={optionsOf(CLASSIFICATIONS)}
          value={rule.data_classification}
          onChange={(v) => set('data_classification')(v as RuleBody['data_classification'])}
        />
        <SelectField
          label="Effect"
          options={optionsOf(EFFECTS)}
          value={rule.policy_effect}
          onChange={(v) => set('policy_effect')(v as RuleBody['policy_effect'])}
        />
        <TextField
          label="Priority"
          description="Higher is evaluated first"
          type="number"
          isRequired
          value={String(rule.priority)}
          onChange={(v) => set('priority')(Number(v))}
          error={errors.priority}
        />
        <TextField
          label="Approval time-to-live (s)"
          description="Empty: the tenant default of 86 400"
          type="number"
          value={ttl}
          onChange={setTtl}
          error={errors.max_session_ttl}
        />
      </div>
      <TextField
        label="Rationale"
        description="10 to 1000 characters; reviewers see it"
        multiline
        rows={2}
        isRequired
        value={rule.rationale}
        onChange={set('rationale')}
        error={errors.rationale}
      />
      <TextField
        label="Conditions (JSON Logic)"
        description="Optional"
        multiline
        rows={3}
        value={conditions}
        onChange={setConditions}
        error={conditionsError ?? errors.conditions}
      />
      <ErrorNotice error={error} />
      <Button type="submit" tone="primary" isDisabled={isPending}>
        {submitLabel}
      </Button>
    </Form>
  );
}
