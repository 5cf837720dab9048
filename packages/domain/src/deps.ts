import type { Mode } from '@agov/config';
import type { Database } from '@agov/db';
import type { ApiKeyCache } from './identity/api-key-cache.js';
import type { Clock } from './clock.js';
import type { DecisionInputsCache } from './policy/decision-inputs.js';
import type { Observer } from './observer.js';
import type { WebhookTransport } from './webhooks/transport.js';

/** What domain functions need from the outside world; built once by the runtime. */
export interface Deps {
  readonly database: Database;
  readonly clock: Clock;
  readonly apiKeys: ApiKeyCache;
  readonly decisionInputs: DecisionInputsCache;
  readonly sessionTtlMs: number;
  /** The base URL people open, without a trailing slash: links in e-mails and chat cards. */
  readonly publicUrl: string;
  /** Decides which webhook targets are allowed (see webhooks/targets.ts). */
  readonly mode: Mode;
  readonly webhooks: {
    readonly transport: WebhookTransport;
    readonly timeoutMs: number;
    /** Delays before the 2nd, 3rd, … attempt; a delivery has `length + 1` attempts. */
    readonly retryDelaysMs: readonly number[];
  };
  /** Where monitoring hears about what the domain did. */
  readonly observe: Observer;
}
