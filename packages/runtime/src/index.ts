import type { Config } from '@agov/config';
import { openDatabase, type Database } from '@agov/db';
import {
  ApiKeyCache,
  applyInvalidation,
  DecisionInputsCache,
  INVALIDATION_CHANNEL,
  systemClock,
  type Clock,
  type Deps,
  type Invalidation,
} from '@agov/domain';
import type { Logger } from 'pino';

export interface Runtime {
  readonly config: Config;
  readonly database: Database;
  readonly deps: Deps;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  logger: Logger;
  clock?: Clock;
}

/**
 * The one place that chooses implementations from configuration: PostgreSQL or embedded
 * PGlite today; the queue, counters, mailer and payment provider join here.
 */
export async function createRuntime(config: Config, options: RuntimeOptions): Promise<Runtime> {
  const database = await openDatabase(config);
  if (config.migrateOnStart) await database.migrate();

  const deps: Deps = {
    database,
    clock: options.clock ?? systemClock,
    apiKeys: new ApiKeyCache(),
    decisionInputs: new DecisionInputsCache(),
    sessionTtlMs: config.sessionTtlMs,
  };

  const stopListening = await database.listen(INVALIDATION_CHANNEL, (payload) => {
    const message = parseInvalidation(payload);
    if (message) applyInvalidation(deps, message);
    else options.logger.warn({ payload }, 'ignored malformed cache invalidation');
  });

  return {
    config,
    database,
    deps,
    async close() {
      await stopListening();
      await database.close();
    },
  };
}

function parseInvalidation(payload: string): Invalidation | null {
  try {
    return JSON.parse(payload) as Invalidation;
  } catch {
    return null;
  }
}

export { createLogger } from './logger.js';
