import { useMutation, useQuery } from '@tanstack/react-query';
import { type ReactNode, useId, useState } from 'react';
import { Link } from 'react-router';
import { Button } from '../../ui/Button';
import type { Option } from '../../ui/choices';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { fetchRule, type RuleBody } from './queries';
import { RuleForm, type RuleFormProps } from './RuleForm';
import { type Simulation, simulateLastWeek, type WhatIfRequest } from './simulation';
import { TraceLinks, Transition } from './Transitions';

interface RuleEditorProps extends Omit<RuleFormProps, 'preview'> {
  /** The id of the rule being edited; none for a new one. */
  ruleId?: string;
  /** The draft as the change the what-if tries. */
  whatIf: (draft: RuleBody) => WhatIfRequest;
}

/**
 * The rule form, and what its draft would have decided in the last 7 days before it is saved.
 * Back to editing, the form opens again on the draft that was previewed.
 */
export function RuleEditor({ ruleId, whatIf, ...form }: RuleEditorProps) {
  const [draft, setDraft] = useState<RuleBody>();
  const simulation = useMutation({ mutationFn: simulateLastWeek });

  if (simulation.isSuccess && draft) {
    return (
      <WhatIfResults
        level={3}
        title={`What if: ${draft.policy_name}`}
        simulation={simulation.data.data}
        draftName={draft.policy_name}
        draftRuleId={ruleId}
        scope={scopeOf(simulation.variables.agentId, form.agents)}
        actions={
          <>
            <Button tone="primary" isDisabled={form.isPending} onPress={() => form.onSubmit(draft)}>
              {form.submitLabel}
            </Button>
            <Button onPress={() => simulation.reset()}>Back to editing</Button>
          </>
        }
        error={form.error}
      />
    );
  }
  return (
    <RuleForm
      {...form}
      initial={draft ?? form.initial}
      error={form.error ?? simulation.error}
      preview={{
        isPending: simulation.isPending,
        onPreview: (body) => {
          setDraft(body);
          simulation.mutate(whatIf(body));
        },
      }}
    />
  );
}

/** Whose recorded evaluations a what-if decides again, in words. */
export const scopeOf = (agentId: string, agents: Option[]) => `of ${agents.find((agent) => agent.id === agentId)?.label ?? agentId}`;

interface WhatIfResultsProps {
  /** The heading, and its level where the results stand. */
  title: string;
  level: 2 | 3;
  simulation: Simulation;
  /** The name of the rule the draft creates or edits. */
  draftName: string;
  /** The id of the rule the draft edits; none for a new rule. */
  draftRuleId?: string | undefined;
  /** Whose evaluations were decided again, as words ("of release-bot"). */
  scope: string;
  /** Saving the draft, and going back. */
  actions: ReactNode;
  /** Saving's failure, if it failed. */
  error?: unknown;
}

/** How many recorded decisions a draft would change, from what to what, by which rule, with some of their traces. */
export function WhatIfResults({ title, level, simulation, draftName, draftRuleId, scope, actions, error }: WhatIfResultsProps) {
  const headingId = useId();
  const Heading = level === 2 ? 'h2' : 'h3';
  const { evaluated, changed, transitions, samples, rules } = simulation;
  return (
    <section aria-labelledby={headingId}>
      <Heading id={headingId}>{title}</Heading>
      <p role="status">
        {evaluated} evaluations {scope} recorded in the last 7 days, decided again with this draft: {changed} would be decided otherwise.
      </p>
      {transitions.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Decisions that would change</caption>
            <thead>
              <tr>
                <th scope="col">From → to</th>
                <th scope="col">Evaluations</th>
                <th scope="col">Sample traces</th>
              </tr>
            </thead>
            <tbody>
              {transitions.map(({ from, to, count }) => (
                <tr key={`${from} ${to}`}>
                  <td>
                    <Transition from={from} to={to} />
                  </td>
                  <td>{count}</td>
                  <td>
                    <TraceLinks
                      traceIds={samples.filter((sample) => sample.from === from && sample.to === to).map((sample) => sample.trace_id)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {rules.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Changed decisions by the rule deciding them under the draft</caption>
            <thead>
              <tr>
                <th scope="col">Deciding rule</th>
                <th scope="col">Changed decisions</th>
              </tr>
            </thead>
            <tbody>
              {rules.map((rule) => (
                <tr key={rule.policy_rule_id ?? `change ${rule.change}`}>
                  <td>
                    <DecidingRule rule={rule} draftName={draftName} draftRuleId={draftRuleId} />
                  </td>
                  <td>{rule.changed}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ErrorNotice error={error} />
      <div className="actions">{actions}</div>
    </section>
  );
}

type Decider = Simulation['rules'][number];

/** The draft's own rule by its draft name; no rule is a default deny or an inactive agent; any other rule links to its page. */
function DecidingRule({ rule, draftName, draftRuleId }: { rule: Decider; draftName: string; draftRuleId: string | undefined }) {
  if (rule.change !== null || (rule.policy_rule_id !== null && rule.policy_rule_id === draftRuleId)) return <>{draftName} (this draft)</>;
  if (rule.policy_rule_id === null) return <>No rule: the default deny, or an inactive agent</>;
  return <RuleLink id={rule.policy_rule_id} />;
}

function RuleLink({ id }: { id: string }) {
  const rule = useQuery({ queryKey: ['policies', id], queryFn: () => fetchRule(id) });
  return <Link to={`/policies/${id}`}>{rule.data?.data.policy_name ?? id}</Link>;
}
