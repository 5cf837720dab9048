import type { CoreDeps } from '../caches/caches.js';
import type { SecretBox } from '../secrets-at-rest/secret-box.js';

export interface GrantDeps extends CoreDeps {
  /** Seals the tenants' private signing keys, and opens them to sign. */
  readonly secrets: SecretBox;
  /** The service's base URL: every grant's `iss`. */
  readonly publicUrl: string;
}
