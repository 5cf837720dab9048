import type { Config } from '@agov/config';
import type { HistoryCounters, RateCounters } from '@agov/domain';
import type { Logger } from 'pino';
import { MemoryCounters } from './rate-limit-store-memory.js';
import { RedisCounters } from './rate-limit-store-redis.js';
import { MemoryHistory } from './history-store-memory.js';
import { RedisHistory } from './history-store-redis.js';

export type RuntimeCounters = RateCounters & { close(): Promise<void> };

/** Rate-limit counters in Redis when it is configured (shared by every API process), in memory otherwise. */
export async function createRateCounters(config: Config, logger: Logger): Promise<RuntimeCounters> {
  if (config.redisUrl) return RedisCounters.connect(config.redisUrl, config.queuePrefix, logger);
  // Embedded mode is one process: its memory is the whole picture, and there is nothing to release.
  return Object.assign(new MemoryCounters(), { close: async () => {} });
}

/** The history operators' counters: in Redis on the rate counters' connection and prefix when they are there, in memory otherwise. */
export function createHistoryCounters(counters: RuntimeCounters, config: Config): HistoryCounters {
  return counters instanceof RedisCounters ? new RedisHistory(counters, config.queuePrefix) : new MemoryHistory(counters);
}
