import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import {
  contributionOf,
  judge,
  rebuildFromMs,
  stepMsOf,
  stepOf,
  tallyOf,
  type GatedReading,
  type HistoryCounters,
  type HistoryEntry,
  type HistoryQuery,
  type HistoryTerm,
  type PolicyEffect,
  type RateGate,
  type TermReading,
} from '@agov/domain';
import { type RedisCounters, type WindowCall, WINDOW_LUA } from './rate-limit-store-redis.js';

/**
 * Per agent and term two keys, as history/tally.ts tallies in memory: `…:t`, a hash of each
 * step's total (`recent_count`, `recent_sum`) beside the field `kept`, the marker that the term
 * is held, and `sum`, the total of the steps from `first` on; `…:v`, for `recent_distinct`, a
 * sorted set of values scored by their last step. An evaluation renews their lifetime once a
 * step, to last until that step has left the window and one step more. Without the marker
 * (Redis lost its data, the term is new, or it lapsed) nothing is answered: the caller tallies
 * the recorded traces first, so a flushed Redis never lets a budget be spent twice.
 */
const keysOf = (prefix: string, agentId: string, term: HistoryTerm) => {
  const name = `${prefix}:history:${agentId}:${digestOf(term)}`;
  return [`${name}:t`, `${name}:v`];
};

/** A term's key digested once: terms live as long as their agent's cached rule set. */
const DIGESTS = new WeakMap<HistoryTerm, string>();
function digestOf(term: HistoryTerm): string {
  let digest = DIGESTS.get(term);
  if (digest === undefined) {
    digest = createHash('sha256').update(term.key).digest('base64url').slice(0, 22);
    DIGESTS.set(term, digest);
  }
  return digest;
}

const kindOf = (term: HistoryTerm) => (term.kind === 'recent_distinct' ? 'distinct' : 'total');
const ttlOf = (term: HistoryTerm) => term.windowMs + stepMsOf(term);

/**
 * One read, atomic and in one round trip, for any number of terms, judged first by a
 * rate-limit window when one is given: answers each term's value before and with the
 * evaluation's contribution as text, and with `reserve` adds that contribution. A total is read
 * from `sum`; once a step has left the window (at most once a step) the steps are totalled
 * again, those gone dropped, so a sum drifts by no more than one step's floating-point
 * additions; a distinct set drops its values gone at the same moment. The keys' lifetime is
 * renewed once a step (`until` names the step last renewed in), to last until that step has
 * left the window.
 * KEYS: the window's two keys when gated, then each term's two. ARGV: now ms, reserve (1 or 0),
 * gated (1 or 0), the window's limit, ms elapsed and window ms (zeros when not gated), then per
 * term its kind, window ms, step ms and contribution ('' for none).
 * Returns {'read', previous, current, then per term before and after}, with the window's counts
 * before this evaluation (zeros when not gated); {'refused', previous, current} when the window
 * refuses; {'missing', i…} (1-based) when terms are not held. Only a read counts in the window,
 * and only a read changes anything.
 */
const READ = `${WINDOW_LUA}
local now, reserve, gated = tonumber(ARGV[1]), ARGV[2] == '1', ARGV[3] == '1'
local g = gated and 2 or 0
local previous, current = 0, 0
if gated then
  previous, current = counts(KEYS[1], KEYS[2])
  if not admits(previous, current, tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])) then
    return {'refused', previous, current}
  end
end
local held, ats, missing = {}, {}, {'missing'}
for i = 1, (#KEYS - g) / 2 do
  ats[i] = math.floor(now / tonumber(ARGV[6 + (i - 1) * 4 + 3]))
  held[i] = redis.call('HMGET', KEYS[g + 2 * i - 1], 'kept', 'first', 'sum', 'until', ats[i])
  if not held[i][1] then missing[#missing + 1] = i end
end
if #missing > 1 then return missing end
if gated then count(KEYS[2], tonumber(ARGV[6]), 1) end
local out = {'read', previous, current}
for i = 1, (#KEYS - g) / 2 do
  local totals, values = KEYS[g + 2 * i - 1], KEYS[g + 2 * i]
  local a = 6 + (i - 1) * 4
  local kind, window, step, add = ARGV[a + 1], tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]), ARGV[a + 4]
  local first, at = math.floor((now - window) / step), ats[i]
  local moved = tonumber(held[i][2]) ~= first
  local before, after = 0, 0
  if kind == 'distinct' then
    if moved then
      redis.call('ZREMRANGEBYSCORE', values, '-inf', '(' .. first)
      redis.call('HSET', totals, 'first', first)
    end
    before = redis.call('ZCARD', values)
    after = before
    if add ~= '' then
      if not redis.call('ZSCORE', values, add) then after = before + 1 end
      if reserve then redis.call('ZADD', values, 'GT', at, add) end
    end
  else
    if moved then
      local fields = redis.call('HGETALL', totals)
      for j = 1, #fields, 2 do
        local field = tonumber(fields[j])
        if field then
          if field < first then redis.call('HDEL', totals, fields[j]) else before = before + tonumber(fields[j + 1]) end
        end
      end
      redis.call('HSET', totals, 'first', first, 'sum', string.format('%.17g', before))
    else
      before = tonumber(held[i][3])
    end
    after = before
    if add ~= '' then
      after = before + tonumber(add)
      if reserve then
        local total = tonumber(held[i][5] or '0') + tonumber(add)
        redis.call('HSET', totals, at, string.format('%.17g', total), 'sum', string.format('%.17g', after))
      end
    end
  end
  if reserve and tonumber(held[i][4]) ~= at then
    local ttl = (at + 2) * step + window - now
    redis.call('HSET', totals, 'until', at)
    redis.call('PEXPIRE', totals, ttl)
    if kind == 'distinct' then redis.call('PEXPIRE', values, ttl) end
  end
  out[#out + 1] = string.format('%.17g', before)
  out[#out + 1] = string.format('%.17g', after)
end
return out
`;

/**
 * A term tallied from the traces. KEYS: its two keys. ARGV: kind, ttl ms, 1 to set the marker
 * (the last part), then pairs: a step and its total, or a value and its last step. A no-op once
 * the term is held: a rebuild that came first, and what was counted since, stay.
 */
const RESTORE = `
if redis.call('HEXISTS', KEYS[1], 'kept') == 1 then return 0 end
for i = 4, #ARGV, 2 do
  if ARGV[1] == 'distinct' then redis.call('ZADD', KEYS[2], 'GT', ARGV[i + 1], ARGV[i])
  else redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
if ARGV[3] == '1' then redis.call('HSET', KEYS[1], 'kept', '1') end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 1
`;

/**
 * A recorded evaluation counted by the terms its decision passes. KEYS: each term's two keys.
 * ARGV: per term its kind, ttl ms, the step it was decided in, and its contribution. A term not
 * held is left alone: its rebuild reads the evaluation from its trace.
 */
const SETTLE = `
for i = 1, #KEYS / 2 do
  local totals, values = KEYS[2 * i - 1], KEYS[2 * i]
  local a = (i - 1) * 4
  if redis.call('HEXISTS', totals, 'kept') == 1 then
    if ARGV[a + 1] == 'distinct' then redis.call('ZADD', values, 'GT', ARGV[a + 3], ARGV[a + 4])
    else
      redis.call('HINCRBYFLOAT', totals, ARGV[a + 3], ARGV[a + 4])
      local first = tonumber(redis.call('HGET', totals, 'first'))
      if first and tonumber(ARGV[a + 3]) >= first then redis.call('HINCRBYFLOAT', totals, 'sum', ARGV[a + 4]) end
    end
    redis.call('PEXPIRE', totals, ARGV[a + 2])
    redis.call('PEXPIRE', values, ARGV[a + 2])
  end
end
return 1
`;

/** Each term's value before and with the evaluation, from a read's answer (after its tag and the window's counts). */
const readingsOf = (answer: readonly (string | number)[]): TermReading[] => {
  const readings: TermReading[] = [];
  for (let at = 3; at < answer.length; at += 2) readings.push({ before: Number(answer[at]), after: Number(answer[at + 1]) });
  return readings;
};

/** Pairs restored per script call: bounded arguments, while the marker waits for the last part. */
const RESTORE_PART = 1_000;

interface Scripts {
  agovHistoryRead(...args: (string | number)[]): Promise<(string | number)[]>;
  agovHistoryRestore(...args: (string | number)[]): Promise<number>;
  agovHistorySettle(...args: (string | number)[]): Promise<number>;
}

/**
 * The agents' history terms tallied in Redis, shared by every API process, on the rate
 * counters' connection and prefix; an evaluation's read judges its tenant's rate limit too. Unlike the rate counters it never falls back to memory: a
 * process's own count would let a budget be spent again, so a Redis that cannot answer fails
 * the conditions that read it (they deny).
 */
export class RedisHistory implements HistoryCounters {
  private readonly redis: Redis & Scripts;

  constructor(
    private readonly counters: RedisCounters,
    private readonly prefix: string,
  ) {
    const redis = counters.connection;
    // The number of keys comes first in each call: one read serves any number of terms.
    redis.defineCommand('agovHistoryRead', { lua: READ });
    redis.defineCommand('agovHistoryRestore', { numberOfKeys: 2, lua: RESTORE });
    redis.defineCommand('agovHistorySettle', { lua: SETTLE });
    this.redis = redis as Redis & Scripts;
  }

  async read(agentId: string, query: HistoryQuery, recorded: (sinceMs: number) => Promise<HistoryEntry[]>): Promise<TermReading[]> {
    return readingsOf(await this.call(agentId, query, recorded, null));
  }

  async admit(
    gate: RateGate,
    agentId: string,
    query: HistoryQuery,
    recorded: (sinceMs: number) => Promise<HistoryEntry[]>,
  ): Promise<GatedReading> {
    const answer = await this.call(agentId, query, recorded, this.counters.windowCall(gate.key, gate.query));
    const verdict = judge({ previous: Number(answer[1]), current: Number(answer[2]) }, gate.query, true);
    return { verdict, readings: answer[0] === 'refused' ? null : readingsOf(answer) };
  }

  /** The script's answer once every term is held: rebuilt from the traces first when some are not. */
  private async call(
    agentId: string,
    { terms, nowMs, entry, reserve }: HistoryQuery,
    recorded: (sinceMs: number) => Promise<HistoryEntry[]>,
    window: WindowCall | null,
  ): Promise<(string | number)[]> {
    const keys = [...(window?.keys ?? []), ...terms.flatMap((term) => keysOf(this.prefix, agentId, term))];
    const args = terms.flatMap((term) => {
      const contribution = entry && contributionOf(term, entry);
      return [kindOf(term), term.windowMs, stepMsOf(term), contribution === null ? '' : String(contribution)];
    });
    const gate = window ? [1, ...window.args] : [0, 0, 0, 0];
    const readOnce = () => this.redis.agovHistoryRead(keys.length, ...keys, nowMs, reserve ? 1 : 0, ...gate, ...args);
    let answer = await readOnce();
    if (answer[0] === 'missing') {
      const missing = answer.slice(1).map((index) => terms[Number(index) - 1]!);
      const entries = await recorded(rebuildFromMs(missing, nowMs) - 1);
      for (const term of missing) await this.restore(keysOf(this.prefix, agentId, term), term, entries);
      answer = await readOnce();
      if (answer[0] === 'missing') throw new Error('history counters lost again while rebuilding');
    }
    return answer;
  }

  async settle(agentId: string, terms: readonly HistoryTerm[], entry: HistoryEntry, decision: PolicyEffect | null): Promise<void> {
    const keys = (of: readonly HistoryTerm[]) => of.flatMap((term) => keysOf(this.prefix, agentId, term));
    if (!decision) {
      await this.redis.del(...keys(terms)).catch(() => undefined);
      return;
    }
    const decided = { ...entry, decision };
    const counted = terms.filter((term) => term.filter.decision && contributionOf(term, decided) !== null);
    if (counted.length === 0) return;
    const args = counted.flatMap((term) => [kindOf(term), ttlOf(term), stepOf(term, entry.atMs), String(contributionOf(term, decided))]);
    await this.redis.agovHistorySettle(counted.length * 2, ...keys(counted), ...args).catch(() => undefined);
  }

  private async restore(keys: string[], term: HistoryTerm, entries: readonly HistoryEntry[]): Promise<void> {
    const held = [...tallyOf(term, entries).held()];
    for (let start = 0; start === 0 || start < held.length; start += RESTORE_PART) {
      const last = start + RESTORE_PART >= held.length ? 1 : 0;
      await this.redis.agovHistoryRestore(...keys, kindOf(term), ttlOf(term), last, ...held.slice(start, start + RESTORE_PART).flat());
    }
  }
}
