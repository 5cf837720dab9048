import type { CoreDeps } from '../caches/caches.js';
import type { SecretBox } from '../secrets-at-rest/secret-box.js';
import type { Observer } from '../support/observer.js';
import type { EndpointBreaker } from './breaker.js';
import type { WebhookTargets } from './targets.js';
import type { DeliveryStore } from './delivery-store.js';
import type { WebhookTransport } from './transport.js';

export interface WebhookSettings {
  readonly transport: WebhookTransport;
  /** Reads and records deliveries, many to a statement under load. */
  readonly deliveries: DeliveryStore;
  readonly timeoutMs: number;
  /** Delays before the 2nd, 3rd, … attempt; a delivery has `length + 1` attempts. */
  readonly retryDelaysMs: readonly number[];
  /** Keeps endpoints that hang from taking every delivery slot of this process. */
  readonly breaker: EndpointBreaker;
}

export interface WebhookDeps extends CoreDeps {
  readonly webhooks: WebhookSettings;
  /** Seals endpoint secrets and opens them to sign. */
  readonly secrets: SecretBox;
  /** Which URLs may receive webhooks and Slack incoming-webhook posts, and how their names resolve. */
  readonly webhookTargets: WebhookTargets;
  /** Where monitoring hears about delivery attempts. */
  readonly observe: Observer;
}
