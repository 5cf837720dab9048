import { describe, expect, it } from 'vitest';
import { ConditionBudget } from './condition-budget.js';
import { firstMatchingRule, orderRules, type ActionRequest, type MatchableRule } from './matching.js';

const request: ActionRequest = {
  operation: 'write',
  target_integration: 'github',
  resource_scope: 'repo/main/src/index.ts',
  data_classification: 'internal',
};

const conditionData = { context: { amount: 500 }, agent: { environment: 'prod' }, request };

function rule(id: string, overrides: Partial<MatchableRule> = {}): MatchableRule {
  return {
    id,
    targetIntegration: 'github',
    operation: 'write',
    resourceScope: 'repo/main/*',
    dataClassification: 'internal',
    policyEffect: 'allow',
    priority: 10,
    conditions: null,
    createdAt: new Date('2024-01-01T00:00:00.000Z'),
    ...overrides,
  };
}

const ids = (rules: readonly MatchableRule[]) => rules.map((r) => r.id);

describe('orderRules', () => {
  it('puts higher priority first', () => {
    const ordered = orderRules([rule('low', { priority: 1 }), rule('high', { priority: 100 }), rule('mid', { priority: 50 })]);
    expect(ids(ordered)).toEqual(['high', 'mid', 'low']);
  });

  it('puts priority before restrictiveness', () => {
    const ordered = orderRules([rule('deny', { priority: 1, policyEffect: 'deny' }), rule('allow', { priority: 2 })]);
    expect(ids(ordered)).toEqual(['allow', 'deny']);
  });

  it('on equal priority puts deny before approval_required before allow', () => {
    const ordered = orderRules([
      rule('allow', { policyEffect: 'allow' }),
      rule('deny', { policyEffect: 'deny' }),
      rule('approval', { policyEffect: 'approval_required' }),
    ]);
    expect(ids(ordered)).toEqual(['deny', 'approval', 'allow']);
  });

  it('on equal priority and effect puts the oldest rule first', () => {
    const ordered = orderRules([
      rule('newest', { createdAt: new Date('2024-03-01T00:00:00.000Z') }),
      rule('oldest', { createdAt: new Date('2024-01-01T00:00:00.000Z') }),
      rule('middle', { createdAt: new Date('2024-02-01T00:00:00.000Z') }),
    ]);
    expect(ids(ordered)).toEqual(['oldest', 'middle', 'newest']);
  });

  it('puts restrictiveness before age', () => {
    const ordered = orderRules([
      rule('old-allow', { createdAt: new Date('2020-01-01T00:00:00.000Z') }),
      rule('new-deny', { policyEffect: 'deny', createdAt: new Date('2024-01-01T00:00:00.000Z') }),
    ]);
    expect(ids(ordered)).toEqual(['new-deny', 'old-allow']);
  });

  it('breaks a full tie by id so the order never depends on input order', () => {
    expect(ids(orderRules([rule('b'), rule('c'), rule('a')]))).toEqual(['a', 'b', 'c']);
    expect(ids(orderRules([rule('c'), rule('a'), rule('b')]))).toEqual(['a', 'b', 'c']);
  });

  it('returns a new array and leaves the input alone', () => {
    const input = [rule('low', { priority: 1 }), rule('high', { priority: 2 })];
    const ordered = orderRules(input);
    expect(ordered).not.toBe(input);
    expect(ids(input)).toEqual(['low', 'high']);
  });
});

describe('firstMatchingRule', () => {
  const match = (rules: MatchableRule[], req: ActionRequest = request) =>
    firstMatchingRule(orderRules(rules), req, conditionData, new ConditionBudget())?.rule.id ?? null;

  it('returns null when nothing matches or there are no rules', () => {
    expect(match([])).toBeNull();
    expect(match([rule('other', { targetIntegration: 'slack' })])).toBeNull();
  });

  it('matches target_integration exactly or by *', () => {
    expect(match([rule('exact')])).toBe('exact');
    expect(match([rule('any', { targetIntegration: '*' })])).toBe('any');
    expect(match([rule('other', { targetIntegration: 'gitlab' })])).toBeNull();
    expect(match([rule('glob', { targetIntegration: 'git*' })])).toBeNull();
  });

  it('matches operation exactly or by *', () => {
    expect(match([rule('any', { operation: '*' })])).toBe('any');
    expect(match([rule('other', { operation: 'read' })])).toBeNull();
    expect(match([rule('glob', { operation: 'wr*' })])).toBeNull();
  });

  it('matches resource_scope as a glob', () => {
    expect(match([rule('all', { resourceScope: '*' })])).toBe('all');
    expect(match([rule('suffix', { resourceScope: '*.ts' })])).toBe('suffix');
    expect(match([rule('exact', { resourceScope: 'repo/main/src/index.ts' })])).toBe('exact');
    expect(match([rule('other', { resourceScope: 'repo/dev/*' })])).toBeNull();
  });

  it('matches data_classification exactly, with no wildcard', () => {
    expect(match([rule('other', { dataClassification: 'restricted' })])).toBeNull();
    expect(match([rule('star', { dataClassification: '*' })])).toBeNull();
  });

  it('matches only when the conditions hold on the data', () => {
    expect(match([rule('holds', { conditions: { '>': [{ var: 'context.amount' }, 100] } })])).toBe('holds');
    expect(match([rule('fails', { conditions: { '>': [{ var: 'context.amount' }, 1000] } })])).toBeNull();
    expect(match([rule('agent', { conditions: { '==': [{ var: 'agent.environment' }, 'prod'] } })])).toBe('agent');
    expect(match([rule('request', { conditions: { '==': [{ var: 'request.operation' }, 'read'] } })])).toBeNull();
  });

  it('skips a rule whose conditions fail and takes the next match', () => {
    const winner = match([
      rule('deny-if-large', { priority: 100, policyEffect: 'deny', conditions: { '>': [{ var: 'context.amount' }, 1000] } }),
      rule('fallback', { priority: 1 }),
    ]);
    expect(winner).toBe('fallback');
  });

  it('picks the highest priority among several matches', () => {
    const winner = match([
      rule('broad', { priority: 1, targetIntegration: '*', operation: '*', resourceScope: '*' }),
      rule('specific', { priority: 50, policyEffect: 'approval_required' }),
      rule('unrelated', { priority: 99, operation: 'delete' }),
    ]);
    expect(winner).toBe('specific');
  });

  it('picks the most restrictive among equal-priority matches', () => {
    const winner = match([
      rule('allow'),
      rule('approval', { policyEffect: 'approval_required', resourceScope: '*' }),
      rule('deny', { policyEffect: 'deny', operation: '*' }),
    ]);
    expect(winner).toBe('deny');
  });

  it('picks the oldest among equal-priority, equal-effect matches', () => {
    const winner = match([
      rule('new', { createdAt: new Date('2024-06-01T00:00:00.000Z') }),
      rule('old', { createdAt: new Date('2023-06-01T00:00:00.000Z') }),
    ]);
    expect(winner).toBe('old');
  });

  it('returns the rule object itself', () => {
    const only = rule('only');
    expect(firstMatchingRule([only], request, conditionData, new ConditionBudget())).toEqual({ rule: only, conditionError: null });
  });

  const doubling = { reduce: [Array.from({ length: 40 }, () => 1), { merge: [{ var: 'accumulator' }, { var: 'accumulator' }] }, [1]] };

  it.each([
    ['errors', { '*': [] }, '"*" needs at least one operand'],
    ['runs out of budget', doubling, 'budget exceeded: more than 10000 operations'],
  ])('fails closed when a condition %s: that rule is the match, with the error, and no lower rule wins', (_, conditions, why) => {
    const failing = rule('failing', { priority: 100, conditions });
    const ordered = orderRules([rule('fallback', { priority: 1 }), failing]);
    expect(firstMatchingRule(ordered, request, conditionData, new ConditionBudget())).toEqual({ rule: failing, conditionError: why });
  });

  it('shares one budget among all the conditions it evaluates', () => {
    // Each condition alone fits the budget (about 4 000 operations); three together do not.
    const scan = { some: [{ var: 'context.items' }, { '<': [{ var: '' }, 0] }] };
    const rules = orderRules([
      rule('first', { priority: 3, conditions: scan }),
      rule('second', { priority: 2, conditions: scan }),
      rule('third', { priority: 1, conditions: scan }),
    ]);
    const data = { ...conditionData, context: { items: Array.from({ length: 1_300 }, (_, i) => i) } };
    const match = firstMatchingRule(rules, request, data, new ConditionBudget());
    expect(match?.rule.id).toBe('third');
    expect(match?.conditionError).toBe('budget exceeded: more than 10000 operations');
    expect(firstMatchingRule(rules.slice(2), request, data, new ConditionBudget())).toBeNull();
  });

  it('does not touch the budget for rules without conditions', () => {
    const budget = new ConditionBudget();
    budget.spend(10_000);
    expect(firstMatchingRule([rule('plain')], request, conditionData, budget)?.rule.id).toBe('plain');
  });
});
