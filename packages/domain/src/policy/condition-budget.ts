import type { HistoryValues } from './history-operators.js';

/**
 * The limits on JSON Logic (CONTRACT, "Hardening decisions"). `nodes` is checked when a
 * condition is written; the rest bound one decision: a single budget is shared by every
 * condition that decision evaluates, so many rules cannot add up to more work than one.
 * `characters` is ours, not the contract's: without it `cat` could double a string the way
 * `merge` doubles an array.
 */
export const CONDITION_LIMITS = {
  /** JSON values in one expression: operator objects, arrays and literals. */
  nodes: 1_000,
  /** Operator applications, plus every array element visited or produced. */
  operations: 10_000,
  /** The longest array one evaluation may build. */
  arrayItems: 10_000,
  /** Characters of text built (cat, text conversions) or searched (`in` on a string). */
  characters: 1_000_000,
} as const;

/** A condition asked for more than its decision's budget; thrown before anything past the limit is allocated. */
export class ConditionBudgetExceeded extends Error {
  override readonly name = 'ConditionBudgetExceeded';
}

const NO_HISTORY: HistoryValues = new Map();

/**
 * One decision's allowance of JSON Logic work; created per decision, never shared between
 * decisions. It carries the decision's history values too (fetched before deciding, see
 * history-operators.ts): the budget is what every operator of the decision is handed, whatever
 * data `filter` or `map` switch to.
 */
export class ConditionBudget {
  private operations = 0;
  private characters = 0;

  constructor(
    readonly history: HistoryValues = NO_HISTORY,
    private readonly limits: typeof CONDITION_LIMITS = CONDITION_LIMITS,
  ) {}

  /** Counts `count` operations. */
  spend(count = 1): void {
    this.operations += count;
    if (this.operations > this.limits.operations) {
      throw new ConditionBudgetExceeded(`budget exceeded: more than ${this.limits.operations} operations`);
    }
  }

  /** Before building an array of `length` items: checks the length and counts each item. */
  items(length: number): void {
    if (length > this.limits.arrayItems) {
      throw new ConditionBudgetExceeded(`budget exceeded: an array of ${length} items (at most ${this.limits.arrayItems})`);
    }
    this.spend(length);
  }

  /** Before building (or searching) `length` characters of text. */
  text(length: number): void {
    this.characters += length;
    if (this.characters > this.limits.characters) {
      throw new ConditionBudgetExceeded(`budget exceeded: more than ${this.limits.characters} characters of text`);
    }
  }
}
