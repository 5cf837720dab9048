import type { HistoryTerm } from '../policy/history-operators.js';
import { fieldOf, passes, type HistoryEntry } from './entries.js';

/**
 * A term's window slides in steps of a 60th of it in whole seconds, at least one: `"10s"` by
 * 1 s, `"1h"` by 1 min, `"24h"` by 24 min. Its value is a sum over at most 61 steps, however
 * many evaluations they hold, so reading it costs the same at any rate.
 */
export const stepMsOf = (term: Pick<HistoryTerm, 'windowMs'>) => Math.max(1_000, Math.floor(term.windowMs / 60_000) * 1_000);

/** The step an instant falls in. */
export const stepOf = (term: Pick<HistoryTerm, 'windowMs'>, atMs: number) => Math.floor(atMs / stepMsOf(term));

/**
 * The first step the window ending at `nowMs` counts: the one holding `nowMs - window`. An
 * evaluation counts from the instant it is decided until its step has wholly left the window:
 * for the window at least, and at most one step longer, never shorter.
 */
export const firstStepOf = (term: Pick<HistoryTerm, 'windowMs'>, nowMs: number) => stepOf(term, nowMs - term.windowMs);

/** Where a rebuild of `terms` at `nowMs` reads the recorded evaluations from: the start of the earliest first step. */
export const rebuildFromMs = (terms: readonly HistoryTerm[], nowMs: number) =>
  Math.min(...terms.map((term) => firstStepOf(term, nowMs) * stepMsOf(term)));

/**
 * What one evaluation adds to a term, or null when it adds nothing (its filter does not pass):
 * 1 to a `recent_count`, the number at the path to a `recent_sum` (0 when it is not a finite
 * number), and to a `recent_distinct` its value as JSON (`1` and `"1"` differ; none without it).
 */
export function contributionOf(term: HistoryTerm, entry: HistoryEntry): number | string | null {
  if (!passes(term.filter, entry)) return null;
  if (term.kind === 'recent_count') return 1;
  const value = fieldOf(entry, term.field!);
  if (term.kind === 'recent_sum') return typeof value === 'number' && Number.isFinite(value) ? value : 0;
  return value === undefined ? null : JSON.stringify(value);
}

/** A term's value just before an evaluation, and with it counted. */
export interface TermReading {
  before: number;
  after: number;
}

/**
 * One term's running tally in memory: per step the count or sum of its evaluations, or for
 * `recent_distinct` each value's last step. Steps that have left the window are dropped as it
 * is read. The counters of embedded mode and the what-if's replay keep these; Redis keeps the
 * same per step (runtime/history-store-redis.ts), so both count alike.
 */
export class TermTally {
  /** `recent_count`, `recent_sum`: the step's total. `recent_distinct`: the values last seen in the step. */
  private readonly steps = new Map<number, number | Set<string>>();
  /** `recent_distinct`: each value's last step. */
  private readonly lastStep = new Map<string, number>();

  constructor(readonly term: HistoryTerm) {}

  /** Its value at `nowMs` before and with `contribution` decided then, which `keep` adds to the tally. */
  read(nowMs: number, contribution: number | string | null, keep: boolean): TermReading {
    const before = this.valueAt(nowMs);
    let after = before;
    if (typeof contribution === 'number') after += contribution;
    else if (contribution !== null && !this.lastStep.has(contribution)) after += 1;
    if (keep) this.add(nowMs, contribution);
    return { before, after };
  }

  /** Counts `contribution` at `atMs`, also one decided before others already counted. */
  add(atMs: number, contribution: number | string | null): void {
    if (contribution === null) return;
    const step = stepOf(this.term, atMs);
    if (typeof contribution === 'number') {
      this.steps.set(step, ((this.steps.get(step) as number | undefined) ?? 0) + contribution);
      return;
    }
    const last = this.lastStep.get(contribution);
    if (last !== undefined && last >= step) return;
    if (last !== undefined) (this.steps.get(last) as Set<string>).delete(contribution);
    this.lastStep.set(contribution, step);
    const values = (this.steps.get(step) as Set<string> | undefined) ?? new Set<string>();
    this.steps.set(step, values.add(contribution));
  }

  /**
   * What it holds, to be stored elsewhere: per step its total (the step as text), or for
   * `recent_distinct` each value and its last step.
   */
  *held(): Generator<[string, number]> {
    for (const [step, held] of this.steps) {
      if (typeof held === 'number') yield [String(step), held];
      else for (const value of held) yield [value, step];
    }
  }

  private valueAt(nowMs: number): number {
    const first = firstStepOf(this.term, nowMs);
    let value = 0;
    for (const [step, held] of this.steps) {
      if (step < first) {
        this.steps.delete(step);
        if (typeof held !== 'number') for (const gone of held) this.lastStep.delete(gone);
      } else value += typeof held === 'number' ? held : held.size;
    }
    return value;
  }
}

/** A term tallied over recorded evaluations, oldest or not. */
export function tallyOf(term: HistoryTerm, entries: readonly HistoryEntry[]): TermTally {
  const tally = new TermTally(term);
  for (const entry of entries) tally.add(entry.atMs, contributionOf(term, entry));
  return tally;
}
