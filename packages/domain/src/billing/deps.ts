import type { CoreDeps } from '../caches/caches.js';
import type { BillingPort } from './provider.js';

export interface BillingDeps extends CoreDeps {
  /** Stripe: checkout and portal sessions, and the webhook's signature check. */
  readonly billing: BillingPort;
  /** The base URL people open, without a trailing slash: where checkout and the portal return. */
  readonly publicUrl: string;
}
