import type { CoreDeps } from '../caches/caches.js';
import type { SecretBox } from '../secrets-at-rest/secret-box.js';

export interface IdempotencyDeps extends CoreDeps {
  /** Seals stored answers, which may carry a secret shown once (a new API key, a webhook's signing secret). */
  readonly secrets: SecretBox;
}
