import type { CoreDeps } from '../caches/caches.js';
import type { HistoryCounters } from './counters.js';

export interface HistoryDeps extends CoreDeps {
  readonly history: HistoryCounters;
}
