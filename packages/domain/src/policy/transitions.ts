import type { PolicyEffect } from './matching.js';

/** How many decisions a change of rules would move from one effect to another. */
export interface Transition {
  from: PolicyEffect;
  to: PolicyEffect;
  count: number;
}

/** Code-point order, the same on every machine (no locale). */
export const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The order the shadow report and the what-if give transitions in: most frequent first, then by decision names. */
export const byCountThenDecisions = (a: Transition, b: Transition) =>
  b.count - a.count || compareText(a.from, b.from) || compareText(a.to, b.to);
