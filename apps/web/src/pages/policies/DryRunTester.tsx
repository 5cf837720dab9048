import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Form } from 'react-aria-components';
import { Link } from 'react-router';
import { api, unwrap } from '../../api/client';
import { StatusBadge } from '../../ui/Badge';
import { Button } from '../../ui/Button';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { type Option, optionsOf, SelectField } from '../../ui/choices';
import { fieldErrors, TextField } from '../../ui/fields';
import { CLASSIFICATIONS } from '../agents/AgentForm';

type Classification = (typeof CLASSIFICATIONS)[number];

/** Asks what evaluate would decide, without a trace, an approval or any effect. */
export function DryRunTester({ agents, agentId }: { agents: Option[]; agentId: string }) {
  const [question, setQuestion] = useState({
    agent_id: agentId,
    operation: '',
    target_integration: '',
    resource_scope: '',
    data_classification: 'internal' as Classification,
  });
  const test = useMutation({ mutationFn: () => unwrap(api.POST('/api/v1/policies/test', { body: question })) });
  const errors = fieldErrors(test.error);
  const set = (field: keyof typeof question) => (value: string) => setQuestion({ ...question, [field]: value });
  return (
    <div className="card">
      <h2>Try an action</h2>
      <Form
        onSubmit={(event) => {
          event.preventDefault();
          test.mutate();
        }}
      >
        <div className="grid">
          <SelectField
            label="Agent to test"
            options={agents}
            value={question.agent_id}
            onChange={set('agent_id')}
            error={errors.agent_id}
          />
          <TextField label="Operation to test" isRequired value={question.operation} onChange={set('operation')} error={errors.operation} />
          <TextField
            label="Integration to test"
            isRequired
            value={question.target_integration}
            onChange={set('target_integration')}
            error={errors.target_integration}
          />
          <TextField
            label="Resource to test"
            isRequired
            value={question.resource_scope}
            onChange={set('resource_scope')}
            error={errors.resource_scope}
          />
          <SelectField
            label="Classification to test"
            options={optionsOf(CLASSIFICATIONS)}
            value={question.data_classification}
            onChange={set('data_classification')}
          />
        </div>
        <ErrorNotice error={test.error} />
        <Button type="submit" isDisabled={test.isPending}>
          Test
        </Button>
      </Form>
      {test.data && (
        <output className="notice notice-info" aria-live="polite">
          <StatusBadge value={test.data.effect} /> {test.data.rationale}
          {test.data.rule_id && (
            <>
              {' '}
              (<Link to={`/policies/${test.data.rule_id}`}>rule, version {test.data.policy_version}</Link>)
            </>
          )}
        </output>
      )}
    </div>
  );
}
