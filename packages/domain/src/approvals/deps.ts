import type { CoreDeps } from '../caches/caches.js';
import type { ApprovalWaiters } from './waiters.js';

export interface ApprovalDeps extends CoreDeps {
  /** The long polls of this process, woken by the moves any process commits. */
  readonly approvalWaiters: ApprovalWaiters;
}
