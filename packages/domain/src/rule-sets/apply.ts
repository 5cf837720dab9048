import type { PolicyRuleRow } from '@agov/db';
import type { Principal } from '../access/access.js';
import type { CoreDeps } from '../caches/caches.js';
import { transactionInvalidating } from '../caches/invalidation.js';
import { lockRuleSet, ruleSetRevision } from '../policy/rule-set.js';
import { insertPolicyRule, patchPolicyRule, softDeletePolicyRule } from '../policy/rule-store.js';
import { draftRules, type DraftChange } from '../simulation/draft.js';
import { AppError } from '../support/errors.js';

export interface RuleSetApply {
  /** The revision the changes were planned against (`ruleSetRevision`). */
  revision: string;
  /** Each created or updated rule's new version carries it. */
  change_summary: string;
  changes: readonly DraftChange[];
}

export interface RuleSetApplied {
  revision: string;
  created: PolicyRuleRow[];
  updated: PolicyRuleRow[];
  deleted: PolicyRuleRow[];
}

/** The current revision of the principal's tenant's rules. */
export const getRuleSetRevision = (deps: CoreDeps, principal: Principal) => ruleSetRevision(deps.database.db, principal.tenantId);

/**
 * Makes a change set live in one transaction, or nothing of it. The changes are first checked
 * exactly as the what-if checks them (`draftRules`: conditions 400 naming `changes.<i>.rule.conditions`, as the schema names fields,
 * an agent or rule outside the tenant 404), so a bad change is refused before anything is written.
 * Then, holding the rule set's exclusive lock, the revision is computed again: another one than
 * `revision` is 409 `conflict` with `details.revision` the current one. Else each change is
 * written as its single-rule endpoint writes it (version, `policy.updated`, cache invalidation),
 * except that the versions' `change_summary` is the one given.
 */
export async function applyRuleSet(deps: CoreDeps, principal: Principal, request: RuleSetApply): Promise<RuleSetApplied> {
  await draftRules(deps, principal, request.changes, undefined);
  const now = deps.clock.now();
  return transactionInvalidating(deps, async (tx, invalidate) => {
    await lockRuleSet(tx, principal.tenantId, 'exclusive');
    const current = await ruleSetRevision(tx, principal.tenantId);
    if (current !== request.revision) {
      throw new AppError('conflict', 'The rules changed since this revision: plan again against the current one', { revision: current });
    }
    const applied: Omit<RuleSetApplied, 'revision'> = { created: [], updated: [], deleted: [] };
    for (const change of request.changes) {
      if (change.action === 'create') {
        applied.created.push(await insertPolicyRule(tx, invalidate, principal, change.rule, now, request.change_summary));
      } else if (change.action === 'update') {
        const summarize = () => request.change_summary;
        applied.updated.push(await patchPolicyRule(tx, invalidate, principal, change.policy_rule_id, change.rule, now, summarize));
      } else {
        applied.deleted.push(await softDeletePolicyRule(tx, invalidate, principal, change.policy_rule_id, now));
      }
    }
    return { revision: await ruleSetRevision(tx, principal.tenantId), ...applied };
  });
}
