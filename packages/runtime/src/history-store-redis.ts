import type { Redis } from 'ioredis';
import { MAX_HISTORY_WINDOW_MS, type HistoryCounters, type HistoryEntry, type PolicyEffect } from '@agov/domain';

/**
 * Per agent three keys: `ids`, a sorted set of trace ids scored by the ms they were decided at;
 * `entries`, a hash of each id's entry as JSON; `kept`, the marker that both hold the agent's
 * last MAX_HISTORY_WINDOW_MS. All three expire together, that long after the agent's last
 * evaluation. Without the marker (Redis lost its data, or never had it) nothing is answered:
 * the caller rebuilds from the recorded traces first, so a flushed Redis never lets a budget
 * be spent twice.
 */
const keysOf = (prefix: string, agentId: string) =>
  ['kept', 'ids', 'entries'].map((name) => `${prefix}:history:${agentId}:${name}`) as [string, string, string];

/**
 * One evaluate's read, atomic and in one round trip: drops entries past the kept span, returns
 * those decided after `since` (JSON), then reserves the current one. Nil without the marker.
 * KEYS: kept, ids, entries. ARGV: now ms, since ms, kept ms, then the reserved id and its JSON.
 */
const READ = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local now, since, kept = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now - kept)
for i = 1, #expired, 1000 do
  redis.call('HDEL', KEYS[3], unpack(expired, i, math.min(i + 999, #expired)))
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - kept)
local ids = redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. since, '+inf')
local found = {}
for i = 1, #ids, 1000 do
  local part = redis.call('HMGET', KEYS[3], unpack(ids, i, math.min(i + 999, #ids)))
  for _, entry in ipairs(part) do if entry then found[#found + 1] = entry end end
end
if ARGV[4] then
  redis.call('ZADD', KEYS[2], now, ARGV[4])
  redis.call('HSET', KEYS[3], ARGV[4], ARGV[5])
  for _, key in ipairs(KEYS) do redis.call('PEXPIRE', key, kept) end
end
return found
`;

/**
 * Entries rebuilt from traces. KEYS: kept, ids, entries. ARGV: kept ms, 1 to set the marker
 * (the last part), then per entry its ms, id and JSON. An entry written meanwhile by a settle is
 * overwritten by the recorded one, which is the truth.
 */
const RESTORE = `
local kept = tonumber(ARGV[1])
for i = 3, #ARGV, 3 do
  redis.call('ZADD', KEYS[2], ARGV[i], ARGV[i + 1])
  redis.call('HSET', KEYS[3], ARGV[i + 1], ARGV[i + 2])
end
if ARGV[2] == '1' then redis.call('SET', KEYS[1], '1') end
for _, key in ipairs(KEYS) do redis.call('PEXPIRE', key, kept) end
return 1
`;

/**
 * A reserved entry decided (ARGV: id, its ms, its JSON) or forgotten (ARGV: id only). A decided
 * entry is written again should Redis have lost it since its reservation, once the agent's
 * history is kept again (its trace is written, and a rebuild from then on reads it); without
 * the marker the coming rebuild reads it from its trace.
 */
const SETTLE = `
if not ARGV[2] then
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('HDEL', KEYS[3], ARGV[1])
  return 1
end
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
return 1
`;

/** Entries restored per script call: bounded arguments, while the marker waits for the last part. */
const RESTORE_PART = 1_000;

interface Scripts {
  agovHistoryRead(...args: (string | number)[]): Promise<string[] | null>;
  agovHistoryRestore(...args: (string | number)[]): Promise<number>;
  agovHistorySettle(...args: (string | number)[]): Promise<number>;
}

/**
 * The agents' recent evaluations in Redis, shared by every API process, on the rate counters'
 * connection and prefix. Unlike the rate counters it never falls back to memory: a process's
 * own count would let a budget be spent again, so a Redis that cannot answer fails the
 * conditions that read it (they deny).
 */
export class RedisHistory implements HistoryCounters {
  private readonly redis: Redis & Scripts;

  constructor(
    redis: Redis,
    private readonly prefix: string,
  ) {
    redis.defineCommand('agovHistoryRead', { numberOfKeys: 3, lua: READ });
    redis.defineCommand('agovHistoryRestore', { numberOfKeys: 3, lua: RESTORE });
    redis.defineCommand('agovHistorySettle', { numberOfKeys: 3, lua: SETTLE });
    this.redis = redis as Redis & Scripts;
  }

  async read(
    agentId: string,
    { sinceMs, nowMs, reserve }: { sinceMs: number; nowMs: number; reserve: HistoryEntry | null },
    recorded: (sinceMs: number) => Promise<HistoryEntry[]>,
  ): Promise<HistoryEntry[]> {
    const keys = keysOf(this.prefix, agentId);
    const reserved = reserve ? [reserve.traceId, JSON.stringify(reserve)] : [];
    const readOnce = () => this.redis.agovHistoryRead(...keys, nowMs, sinceMs, MAX_HISTORY_WINDOW_MS, ...reserved);
    let found = await readOnce();
    if (found === null) {
      await this.restore(keys, await recorded(nowMs - MAX_HISTORY_WINDOW_MS));
      found = await readOnce();
      if (found === null) throw new Error('history counters lost again while rebuilding');
    }
    return found.map((entry) => JSON.parse(entry) as HistoryEntry);
  }

  async settle(agentId: string, entry: HistoryEntry, decision: PolicyEffect | null): Promise<void> {
    const decided = decision ? [entry.atMs, JSON.stringify({ ...entry, decision })] : [];
    await this.redis.agovHistorySettle(...keysOf(this.prefix, agentId), entry.traceId, ...decided).catch(() => undefined);
  }

  private async restore(keys: [string, string, string], entries: HistoryEntry[]): Promise<void> {
    for (let start = 0; start === 0 || start < entries.length; start += RESTORE_PART) {
      const part = entries.slice(start, start + RESTORE_PART);
      const last = start + RESTORE_PART >= entries.length ? 1 : 0;
      await this.redis.agovHistoryRestore(
        ...keys,
        MAX_HISTORY_WINDOW_MS,
        last,
        ...part.flatMap((entry) => [entry.atMs, entry.traceId, JSON.stringify(entry)]),
      );
    }
  }
}
