import type { Database } from '@agov/db';
import type { ApiKeyCache } from './identity/api-key-cache.js';
import type { Clock } from './clock.js';
import type { DecisionInputsCache } from './policy/decision-inputs.js';

/** What domain functions need from the outside world; built once by the runtime. */
export interface Deps {
  readonly database: Database;
  readonly clock: Clock;
  readonly apiKeys: ApiKeyCache;
  readonly decisionInputs: DecisionInputsCache;
  readonly sessionTtlMs: number;
}
