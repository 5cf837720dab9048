import type { CoreDeps } from '../caches/caches.js';
import type { EvaluationWriter } from './evaluation-writer.js';

export interface EvaluationDeps extends CoreDeps {
  /** Commits evaluations, many to a statement under load. */
  readonly evaluations: EvaluationWriter;
}
