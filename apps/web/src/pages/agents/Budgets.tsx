import { Link } from 'react-router';
import type { components } from '@agov/sdk';

type BudgetUse = components['schemas']['AgentDetail']['stats']['budgets'][number];

/** The history operator a budget limits, in the rule's own JSON Logic. */
const written = (expression: Record<string, unknown>) => JSON.stringify(expression);

/**
 * Each limit the agent's rules set on a history operator, with its use in the window now: what
 * `budget.threshold` webhooks report at 80 and 100 %.
 */
export function Budgets({ budgets }: { budgets: readonly BudgetUse[] }) {
  if (budgets.length === 0) return null;
  return (
    <>
      <h2>Budgets</h2>
      <div className="table-wrap">
        <table className="budgets">
          <thead>
            <tr>
              <th scope="col">Rule</th>
              <th scope="col">Counts</th>
              <th scope="col">Used</th>
            </tr>
          </thead>
          <tbody>
            {budgets.map((budget) => (
              <tr key={`${budget.policy_rule_id} ${written(budget.expression)} ${budget.limit}`}>
                <td>
                  <Link to={`/policies/${budget.policy_rule_id}`}>{budget.policy_name}</Link>
                </td>
                <td className="mono">{written(budget.expression)}</td>
                <td>
                  {budget.used === null ? (
                    <span className="muted">unknown: the history counters do not answer</span>
                  ) : (
                    <>
                      <meter
                        min={0}
                        max={budget.limit}
                        high={budget.limit * 0.8}
                        value={budget.used}
                        aria-label={`${budget.policy_name}: used`}
                      />{' '}
                      {budget.used} of {budget.limit}
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
