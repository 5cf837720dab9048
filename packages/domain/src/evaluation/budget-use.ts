import type { Principal } from '../access/access.js';
import { budgetUse } from '../history/budgets.js';
import { loadDecisionInputs } from './decide.js';
import type { EvaluationDeps } from './deps.js';

/** The budgets the agent's rules set, each with its use now, for its detail view; 404 outside the tenant. */
export async function agentBudgetUse(deps: EvaluationDeps, principal: Principal, agentId: string) {
  return budgetUse(deps, await loadDecisionInputs(deps, principal.tenantId, agentId));
}
