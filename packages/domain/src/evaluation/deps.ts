import type { Freshness } from '../caches/freshness.js';
import type { GrantDeps } from '../grants/deps.js';
import type { HistoryDeps } from '../history/deps.js';
import type { LimitsDeps } from '../limits/deps.js';
import type { EvaluationWriter } from './evaluation-writer.js';

export interface EvaluationDeps extends GrantDeps, LimitsDeps, HistoryDeps {
  /** Commits evaluations, many to a statement under load. */
  readonly evaluations: EvaluationWriter;
  /** Holds a request back until the caches reflect every change committed before it. */
  readonly freshness: Freshness;
}
