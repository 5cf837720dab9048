import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import {
  judge,
  LOGIN_QUIET_MS,
  StatementBatcher,
  windowIndex,
  type LoginSchedule,
  type LoginVerdict,
  type RateCounters,
  type WindowQuery,
  type WindowVerdict,
} from '@agov/domain';
import { MemoryCounters } from './rate-limit-store-memory.js';

/**
 * The sliding window in Lua, for every script that judges one. Mirrors `admits` in
 * packages/domain/src/limits/sliding-window.ts: integer products only, so both agree exactly.
 * A window is two keys, the previous and the current fixed window's count.
 */
export const WINDOW_LUA = `
local function counts(previousKey, currentKey)
  local found = redis.call('MGET', previousKey, currentKey)
  return tonumber(found[1] or '0'), tonumber(found[2] or '0')
end
local function admits(previous, current, limit, elapsed, window)
  return previous * (window - elapsed) + (current + 1) * window <= limit * window
end
local function count(currentKey, window, requests)
  redis.call('INCRBY', currentKey, requests)
  redis.call('PEXPIRE', currentKey, 2 * window)
end
`;

/**
 * Several requests' sliding-window checks, atomic and in one round trip, each judged on the
 * counts the ones before it left (a window's current count is the next one's previous). KEYS:
 * the fixed windows' keys, each once. ARGV, six per request: the numbers (from 1) of its previous
 * and current window's keys, limit, ms elapsed in the current fixed window, window ms, 1 to count
 * it if admitted (0 only looks). Returns, per request, {previous, current} before it, which
 * `judge` rules on as it would for a request alone.
 */
const SLIDING_WINDOWS = `${WINDOW_LUA}
local found = redis.call('MGET', unpack(KEYS))
-- held: each key's count as the requests judged so far left it; spans: the window ms of a key counted in.
local held, spans = {}, {}
for key = 1, #KEYS do held[key] = tonumber(found[key] or '0') end
local verdicts = {}
for request = 0, #ARGV / 6 - 1 do
  local at = 6 * request
  local previous, current = tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2])
  local span = tonumber(ARGV[at + 5])
  verdicts[request + 1] = { held[previous], held[current] }
  if ARGV[at + 6] == '1' and admits(held[previous], held[current], tonumber(ARGV[at + 3]), tonumber(ARGV[at + 4]), span) then
    held[current] = held[current] + 1
    spans[current] = span
  end
end
for key = 1, #KEYS do
  if spans[key] then count(KEYS[key], spans[key], held[key] - tonumber(found[key] or '0')) end
end
return verdicts
`;

/** Takes back one request counted in a fixed window. KEYS: that window's key. */
const WITHDRAW = `
if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then redis.call('DECR', KEYS[1]) end
`;

/** A window's keys and the arguments that judge it (`WINDOW_LUA`): limit, ms elapsed in the current fixed window, window ms. */
export interface WindowCall {
  keys: [string, string];
  args: [number, number, number];
}

/**
 * One sign-in attempt on a record, atomic. Mirrors `attemptOn` in
 * packages/domain/src/limits/login-attempts.ts; the schedule comes as arguments, so it lives
 * in one place. KEYS: the record (hash of failures, last, expires). ARGV: now ms, quiet ms,
 * free attempts, enforced 1|0, then the delay after 0, 1, 2 … failures.
 * Returns {admitted 1|0, when the next attempt is admitted, failures before this attempt}.
 */
const LOGIN_ATTEMPT = `
local now = tonumber(ARGV[1])
local record = redis.call('HMGET', KEYS[1], 'failures', 'last', 'expires')
local failures, last = 0, 0
if record[3] and now < tonumber(record[3]) then
  failures, last = tonumber(record[1]), tonumber(record[2])
end
local function delay(n) return tonumber(ARGV[5 + math.min(n, #ARGV - 5)]) end
if ARGV[4] == '1' and failures >= tonumber(ARGV[3]) and now < last + delay(failures) then
  return { 0, last + delay(failures), failures }
end
local expires = now + delay(failures + 1) + tonumber(ARGV[2])
redis.call('HSET', KEYS[1], 'failures', failures + 1, 'last', now, 'expires', expires)
redis.call('PEXPIRE', KEYS[1], expires - now)
return { 1, now, failures }
`;

interface Scripts {
  agovSlidingWindows(...args: (string | number)[]): Promise<[number, number][]>;
  agovLoginAttempt(...args: (string | number)[]): Promise<[number, number, number]>;
  agovWithdraw(key: string): Promise<null>;
}

/** One request's check of a sliding window (`RateCounters.hit`). */
interface WindowHit {
  key: string;
  query: WindowQuery;
  counted: boolean;
}

/** After a failed call, how long to count in memory before asking Redis again (a hung server costs every request its timeout). */
const PAUSE_AFTER_FAILURE_MS = 1_000;

/**
 * Counters in Redis, shared by every API process. When Redis cannot answer, each process
 * counts in its own memory instead (limits still hold per process) and says so once; it
 * never turns a request away because Redis is down. Offline commands fail at once and calls
 * time out quickly, so a dead Redis costs no latency.
 */
export class RedisCounters implements RateCounters {
  private readonly local = new MemoryCounters();
  private readonly redis: Redis & Scripts;
  /**
   * One script call under way at a time; the requests that arrive meanwhile go in the next. A
   * call costs this process and Redis far more than a request's share of it does.
   */
  private readonly windows = new StatementBatcher<WindowHit, WindowVerdict>((hits) => this.judgeWindows(hits), {
    maxInFlight: 1,
    maxBatch: 256,
    // A script fails only when Redis does not answer: each request then counts in memory.
    storeAway: () => true,
  });
  private fallenBack = false;
  private pausedUntilMs = 0;

  private constructor(
    redisUrl: string,
    private readonly prefix: string,
    private readonly logger: Logger,
  ) {
    const redis = new Redis(redisUrl, {
      enableOfflineQueue: false,
      connectTimeout: 1_000,
      commandTimeout: 500,
      maxRetriesPerRequest: 0,
      // Calls made in the same tick (the limiter's, the history's) go out as one write.
      enableAutoPipelining: true,
    });
    // Its number of keys varies: each call passes it first.
    redis.defineCommand('agovSlidingWindows', { lua: SLIDING_WINDOWS });
    redis.defineCommand('agovLoginAttempt', { numberOfKeys: 1, lua: LOGIN_ATTEMPT });
    redis.defineCommand('agovWithdraw', { numberOfKeys: 1, lua: WITHDRAW });
    // Connection errors repeat while Redis is down; the fallback logs the outage once instead.
    redis.on('error', () => {});
    this.redis = redis as Redis & Scripts;
  }

  /** Connects, waiting at most the connect timeout: a Redis that is down at start-up leaves the counters in memory until it answers. */
  static async connect(redisUrl: string, prefix: string, logger: Logger): Promise<RedisCounters> {
    const counters = new RedisCounters(redisUrl, prefix, logger);
    await new Promise<void>((resolve) => {
      counters.redis.once('ready', resolve);
      counters.redis.once('error', () => resolve());
    });
    return counters;
  }

  /** The connection, which the history counters share (history-store-redis.ts). */
  get connection(): Redis {
    return this.redis;
  }

  get degraded(): boolean {
    return this.fallenBack;
  }

  hit(key: string, query: WindowQuery, counted: boolean): Promise<WindowVerdict> {
    return this.shared(
      () => this.windows.submit({ key, query, counted }),
      () => this.local.hit(key, query, counted),
    );
  }

  /** Requests' checks in one script call, in order (`SLIDING_WINDOWS`). */
  private async judgeWindows(hits: readonly WindowHit[]): Promise<WindowVerdict[]> {
    // Requests that waited behind a call that failed count in memory now, not after a timeout of their own.
    if (!this.answering) throw new Error('rate limits: Redis is not answering');
    const keys = new Map<string, number>();
    const numberOf = (key: string) => {
      if (!keys.has(key)) keys.set(key, keys.size + 1);
      return keys.get(key)!;
    };
    const args = hits.flatMap(({ key, query, counted }) => {
      const call = this.windowCall(key, query);
      return [numberOf(call.keys[0]), numberOf(call.keys[1]), ...call.args, counted ? 1 : 0];
    });
    const found = await this.redis.agovSlidingWindows(keys.size, ...keys.keys(), ...args);
    return hits.map(({ query, counted }, index) => {
      const [previous, current] = found[index]!;
      return judge({ previous, current }, query, counted);
    });
  }

  withdraw(key: string, query: WindowQuery): Promise<void> {
    return this.shared(
      async () => {
        await this.redis.agovWithdraw(this.windowCall(key, query).keys[1]);
      },
      () => this.local.withdraw(key, query),
    );
  }

  /** `key`'s window at `query` as a script judges it; the history read judges the tenant's limit in its own (history-store-redis.ts). */
  windowCall(key: string, query: WindowQuery): WindowCall {
    const index = windowIndex(query.nowMs, query.windowMs);
    return {
      keys: [this.keyOf(`${key}:${index - 1}`), this.keyOf(`${key}:${index}`)],
      args: [query.limit, query.nowMs - index * query.windowMs, query.windowMs],
    };
  }

  attemptLogin(key: string, nowMs: number, rules: LoginSchedule, enforced: boolean): Promise<LoginVerdict> {
    return this.shared(
      async () => {
        const [admitted, retryAtMs, priorFailures] = await this.redis.agovLoginAttempt(
          this.keyOf(key),
          nowMs,
          LOGIN_QUIET_MS,
          rules.freeAttempts,
          enforced ? 1 : 0,
          ...rules.delaysMs,
        );
        return { admitted: admitted === 1, retryAtMs, priorFailures };
      },
      () => this.local.attemptLogin(key, nowMs, rules, enforced),
    );
  }

  forgetLogin(key: string): Promise<void> {
    return this.shared(
      async () => {
        await this.redis.del(this.keyOf(key));
      },
      () => this.local.forgetLogin(key),
    );
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }

  private keyOf(key: string): string {
    return `${this.prefix}:rl:${key}`;
  }

  private async shared<T>(inRedis: () => Promise<T>, inMemory: () => Promise<T>): Promise<T> {
    if (!this.answering) {
      this.fallBack(null);
      return inMemory();
    }
    try {
      const result = await inRedis();
      if (this.fallenBack) {
        this.fallenBack = false;
        this.logger.info('rate limits: Redis answers again; counting in Redis');
      }
      return result;
    } catch (error) {
      this.pausedUntilMs = Date.now() + PAUSE_AFTER_FAILURE_MS;
      this.fallBack(error);
      return inMemory();
    }
  }

  /** Whether to ask Redis: connected, and not pausing after a failed call. */
  private get answering(): boolean {
    return this.redis.status === 'ready' && Date.now() >= this.pausedUntilMs;
  }

  private fallBack(error: unknown): void {
    if (this.fallenBack) return;
    this.fallenBack = true;
    this.logger.warn(error ? { err: error } : {}, 'rate limits: Redis unreachable; counting in this process until it answers');
  }
}
