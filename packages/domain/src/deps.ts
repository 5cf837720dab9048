import type { Config } from '@agov/config';
import type { Database } from '@agov/db';
import type { BillingPort } from './billing/provider.js';
import type { ChatPort } from './chat/slack-api.js';
import type { CacheFreshness } from './cache-freshness.js';
import type { DatabaseAvailability } from './database-availability.js';
import type { ApiKeyCache } from './identity/api-key-cache.js';
import type { Clock } from './clock.js';
import type { EffectAudienceCache } from './effect-audience-cache.js';
import type { EvaluationWriter } from './evaluation/evaluation-writer.js';
import type { DecisionInputsCache } from './policy/decision-inputs.js';
import type { RateCounters } from './limits/counters.js';
import type { SecretBox } from './secrets-at-rest/secret-box.js';
import type { TenantPlanCache } from './limits/tenant-plan-cache.js';
import type { Mailer } from './notifications/mailer.js';
import type { Observer } from './observer.js';
import type { DeliveryStore } from './webhooks/delivery-store.js';
import type { EndpointBreaker } from './webhooks/breaker.js';
import type { WebhookTargets } from './webhooks/targets.js';
import type { WebhookTransport } from './webhooks/transport.js';

/** What domain functions need from the outside world; built once by the runtime. */
export interface Deps {
  readonly database: Database;
  /** Whether the database answers, learned from the errors work meets; told once per outage. */
  readonly databaseAvailability: Pick<DatabaseAvailability, 'available' | 'report'>;
  readonly clock: Clock;
  readonly apiKeys: ApiKeyCache;
  readonly decisionInputs: DecisionInputsCache;
  /** Holds a request back until the caches above reflect every change committed before it. */
  readonly freshness: Pick<CacheFreshness, 'ensure'>;
  /** Commits evaluations, many to a statement under load. */
  readonly evaluations: EvaluationWriter;
  readonly sessionTtlMs: number;
  /** The base URL people open, without a trailing slash: links in e-mails and chat cards. */
  readonly publicUrl: string;
  /** Seals the secrets the service stores and opens them again (see secrets-at-rest/README.md). */
  readonly secrets: SecretBox;
  /** Which URLs may receive webhooks and Slack incoming-webhook posts, and how their names resolve. */
  readonly webhookTargets: WebhookTargets;
  readonly webhooks: {
    readonly transport: WebhookTransport;
    /** Reads and records deliveries, many to a statement under load. */
    readonly deliveries: DeliveryStore;
    readonly timeoutMs: number;
    /** Delays before the 2nd, 3rd, … attempt; a delivery has `length + 1` attempts. */
    readonly retryDelaysMs: readonly number[];
    /** Keeps endpoints that hang from taking every delivery slot of this process. */
    readonly breaker: EndpointBreaker;
  };
  /** Sends approval e-mails (SMTP, or nothing when `SMTP_URL` is unset). */
  readonly mailer: Mailer;
  /** Slack's Web API for chat cards and callbacks, and where chat failures are reported. */
  readonly chat: ChatPort;
  /** Who receives each tenant's effects, so evaluate writes none for nobody. */
  readonly effectAudiences: EffectAudienceCache;
  /** Each tenant's plan, which sets its rate limits. */
  readonly tenantPlans: TenantPlanCache;
  readonly rateLimits: {
    readonly counters: RateCounters;
    /** Per tenant per minute by category (null: the plan decides), and per client address without credentials. */
    readonly perMinute: Config['rateLimits'];
  };
  /** Stripe: checkout and portal sessions, and the webhook's signature check. */
  readonly billing: BillingPort;
  /** Where monitoring hears about what the domain did. */
  readonly observe: Observer;
}
