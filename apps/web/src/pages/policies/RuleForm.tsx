import { useState } from 'react';
import { Form } from 'react-aria-components';
import { useSession } from '../../session/session';
import { Button } from '../../ui/Button';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { CheckboxField, type Option, optionsOf, SelectField } from '../../ui/choices';
import { fieldErrors, optionalNumberOf, optionalNumberText, TextField } from '../../ui/fields';
import { CLASSIFICATIONS } from '../agents/AgentForm';
import { EFFECTS, type RuleBody } from './queries';

export interface RuleFormProps {
  agents: Option[];
  initial: RuleBody;
  submitLabel: string;
  error: unknown;
  isPending: boolean;
  onSubmit: (body: RuleBody) => void;
  /** Offered when given: what the draft would have decided in recorded traffic, before it is saved. */
  preview?: { onPreview: (body: RuleBody) => void; isPending: boolean };
}

/** A rule's fields; conditions are JSON Logic, checked for being JSON before they are sent. */
export function RuleForm({ agents, initial, submitLabel, error, isPending, onSubmit, preview }: RuleFormProps) {
  const { user } = useSession();
  const [rule, setRule] = useState(initial);
  const [conditions, setConditions] = useState(initial.conditions ? JSON.stringify(initial.conditions, null, 2) : '');
  const [conditionsError, setConditionsError] = useState<string | undefined>();
  const [ttl, setTtl] = useState(optionalNumberText(initial.max_session_ttl));
  const [escalateAfter, setEscalateAfter] = useState(optionalNumberText(initial.escalate_after_seconds));
  const errors = fieldErrors(error);
  const set =
    <K extends keyof typeof rule>(field: K) =>
    (value: (typeof rule)[K]) =>
      setRule({ ...rule, [field]: value });

  /** The request body the form holds, or nothing while its conditions are not JSON: one body for saving and for previewing. */
  const draftBody = (): RuleBody | undefined => {
    let parsed: RuleBody['conditions'] = null;
    if (conditions.trim()) {
      try {
        parsed = JSON.parse(conditions);
      } catch {
        setConditionsError('is not valid JSON');
        return undefined;
      }
    }
    setConditionsError(undefined);
    return {
      ...rule,
      conditions: parsed,
      max_session_ttl: optionalNumberOf(ttl),
      escalate_after_seconds: optionalNumberOf(escalateAfter),
      modified_by: user.email,
      modified_at: new Date().toISOString(),
    };
  };

  return (
    <Form
      onSubmit={(event) => {
        event.preventDefault();
        const body = draftBody();
        if (body) onSubmit(body);
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
        {rule.policy_effect === 'approval_required' && (
          <TextField
            label="Approvals required"
            description="Distinct people, 1 to 5; any one deny ends it"
            type="number"
            isRequired
            value={String(rule.approvals_required ?? 1)}
            onChange={(v) => set('approvals_required')(Number(v))}
            error={errors.approvals_required}
          />
        )}
        {rule.policy_effect === 'approval_required' && (
          <TextField
            label="Escalate after (s)"
            description="Still pending then: the escalation recipients are told once. Empty: never"
            type="number"
            value={escalateAfter}
            onChange={setEscalateAfter}
            error={errors.escalate_after_seconds}
          />
        )}
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
      <CheckboxField
        label="Shadow mode: never decides; the shadow report counts the decisions it would have changed"
        value={rule.mode === 'shadow'}
        onChange={(shadow) => set('mode')(shadow ? 'shadow' : 'enforce')}
      />
      <ErrorNotice error={error} />
      <div className="actions">
        <Button type="submit" tone="primary" isDisabled={isPending}>
          {submitLabel}
        </Button>
        {preview && (
          <Button
            isDisabled={preview.isPending}
            onPress={() => {
              const body = draftBody();
              if (body) preview.onPreview(body);
            }}
          >
            {preview.isPending ? 'Previewing…' : 'Preview on the last 7 days'}
          </Button>
        )}
      </div>
    </Form>
  );
}
