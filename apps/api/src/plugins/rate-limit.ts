import rateLimit, { type FastifyRateLimitStore, normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  AppError,
  tenantRateLimit,
  type Admission,
  type Deps,
  type RateCategory,
  type RateCounters,
  type WindowVerdict,
} from '@agov/domain';

/** The spec's window: 60 seconds, sliding. */
const WINDOW_MS = 60_000;
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

type Limiter = ReturnType<FastifyInstance['createRateLimit']>;
type StoreCallback = Parameters<FastifyRateLimitStore['incr']>[1];

/** A public route's own allowance per client address: what it counts, and how many a minute. */
export interface AddressLimit {
  category: string;
  perMinute: number;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Counts this route's requests per address apart from the unauthenticated allowance, for a
     * caller that rightly sends many from few addresses (Slack, for every tenant).
     */
    addressLimit?: AddressLimit;
    /**
     * The tenant's allowance this route counts against, when not the one its method implies
     * (spec: read for GET, write for the other methods): `evaluate` on POST /evaluate.
     */
    rateCategory?: RateCategory;
    /**
     * The tenant's limit is judged by the handler, with the first call it makes to the counters
     * anyway (evaluate: with the agent's history read, one round trip for both), instead of
     * before the body is read. A request answered before the handler judges it (invalid,
     * forbidden, an idempotent replay, an unknown agent) is judged as it is answered.
     */
    deferredLimit?: boolean;
  }
  interface FastifyRequest {
    /** On a route with `deferredLimit`, the tenant's window until it is judged; then null. */
    admission: Admission | null;
  }
}

/** A request's count against its tenant's limit, judged. */
export interface TenantCount {
  /** Sets the headers, or throws the 429. */
  answer(): void;
  /** Takes the count back: the request turned out to count against its address. */
  withdraw(): Promise<void>;
}

/** The two limits a request can count against; the auth plugin calls them once it knows who is calling. */
export interface RequestLimits {
  /** Without valid credentials (none, refused ones, signup, login): per client address, in the route's allowance if it declares one. */
  anonymous(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Authenticated: per tenant, in the request's category; on a route with `deferredLimit`, only prepared (`request.admission`). */
  tenant(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /**
   * Per tenant as `tenant`, on the plan this process has heard of, while the caches are checked
   * (`missed`: whether that brought a change it had not heard of); should it, judged again if
   * the plan then in force has another figure. Not for a route with `deferredLimit`.
   */
  tenantBeside(request: FastifyRequest, reply: FastifyReply, missed: Promise<boolean>): Promise<TenantCount>;
  /** Judges a deferred limit that is still waiting (`request.admission`), as the request is answered otherwise. */
  judgeWaiting(request: FastifyRequest, reply: FastifyReply): Promise<void>;
}

/**
 * Address limits through @fastify/rate-limit, over a store of ours that implements the sliding
 * window (its own stores count fixed windows). The plugin adds no hooks of its own (`global:
 * false`): where a request counts depends on authentication, so the auth plugin calls these
 * limiters. A tenant's limit calls the counters itself: it is judged beside the caches' check,
 * or by evaluate's handler, and a count may have to be taken back. The plugin's reset header
 * counts seconds from now and its 429 is not the spec's, so the headers and the error are ours.
 * Every response that passed a limiter carries X-RateLimit-Limit, -Remaining and -Reset (Unix
 * seconds); see docs/rate-limits.md.
 */
export async function installRateLimits(app: FastifyInstance, deps: Deps): Promise<RequestLimits> {
  await app.register(rateLimit, { global: false, store: storeOver(deps.rateLimits.counters) });
  app.decorateRequest('admission', null);
  const now = () => deps.clock.now().getTime();

  const unauthenticated: AddressLimit = { category: 'unauthenticated', perMinute: deps.rateLimits.perMinute.unauthenticated };
  const allowanceOf = (request: FastifyRequest) => request.routeOptions.config.addressLimit ?? unauthenticated;
  const perAddress = app.createRateLimit({
    timeWindow: WINDOW_MS,
    keyGenerator: (request) => {
      // req.ip honours TRUST_PROXY; an IPv6 client is counted by its /64, as one host usually holds all of it.
      const address = `ip:${normalizeIP(request.ip)}`;
      const { addressLimit } = request.routeOptions.config;
      return keyAt(addressLimit ? `${address}:${addressLimit.category}` : address, now());
    },
    max: (request) => allowanceOf(request).perMinute,
  });

  /**
   * A deferred limit's refusals, by window, until the instant the window admits again. A refusal
   * is judged after the body is read and the idempotency key claimed; remembered, the requests
   * that keep knocking meanwhile are refused on arrival, at no cost. It is the counters' own
   * answer: until then no request is counted anywhere, so none can be admitted (nor could
   * any with the same limit; a new limit asks the counters again).
   */
  const refusals = new Map<string, { limit: number; untilMs: number }>();
  async function prepare(request: FastifyRequest, reply: FastifyReply) {
    const category = categoryOf(request);
    const key = `tenant:${request.principal.tenantId}:${category}`;
    const query = { limit: await tenantRateLimit(deps, request.principal.tenantId, category), windowMs: WINDOW_MS, nowMs: now() };
    const refused = refusals.get(key);
    if (refused && refused.limit === query.limit && query.nowMs < refused.untilMs) {
      answer(reply, category, query.limit, { allowed: false, remaining: 0, atMs: refused.untilMs }, query.nowMs, true);
    }
    if (refused) refusals.delete(key);
    request.admission = {
      gate: { key, query },
      judged: (verdict: WindowVerdict) => {
        request.admission = null;
        if (!verdict.allowed) refusals.set(key, { limit: query.limit, untilMs: verdict.retryAtMs });
        answer(reply, category, query.limit, standingOf(verdict), query.nowMs, true);
      },
    };
  }

  async function countBeside(request: FastifyRequest, reply: FastifyReply, missed: Promise<boolean>): Promise<TenantCount> {
    const { counters } = deps.rateLimits;
    const category = categoryOf(request);
    const key = `tenant:${request.principal.tenantId}:${category}`;
    const nowMs = now();
    const figure = () => tenantRateLimit(deps, request.principal.tenantId, category);
    const count = async (limit: number) => {
      const query = { limit, windowMs: WINDOW_MS, nowMs };
      return { query, verdict: await counters.hit(key, query, true) };
    };
    const withdraw = async ({ query, verdict }: Awaited<ReturnType<typeof count>>) => {
      if (verdict.allowed) await counters.withdraw(key, query);
    };
    let counted = await count(await figure());
    // The caller answers a failed check of the caches.
    if (await missed.catch(() => false)) {
      const limit = await figure();
      if (limit !== counted.query.limit) {
        await withdraw(counted);
        counted = await count(limit);
      }
    }
    const judged = counted;
    return {
      answer: () => answer(reply, category, judged.query.limit, standingOf(judged.verdict), nowMs, true),
      withdraw: () => withdraw(judged),
    };
  }

  return {
    // A route with `rateLimit: false` (health probes) is not counted: it only shows where the caller stands.
    anonymous: (request, reply) =>
      limit(perAddress, request, reply, allowanceOf(request).category, request.routeOptions.config.rateLimit !== false),
    tenant: async (request, reply) => {
      if (request.routeOptions.config.deferredLimit) return prepare(request, reply);
      (await countBeside(request, reply, NOTHING_MISSED)).answer();
    },
    tenantBeside: countBeside,
    judgeWaiting: async (request) => {
      const admission = request.admission;
      if (admission) admission.judged(await deps.rateLimits.counters.hit(admission.gate.key, admission.gate.query, true));
    },
  };
}

const NOTHING_MISSED = Promise.resolve(false);

/** Where a verdict leaves the request: `atMs` is when the window is all forgotten if admitted, when it admits again if refused. */
const standingOf = (verdict: WindowVerdict) => ({
  allowed: verdict.allowed,
  remaining: verdict.remaining,
  atMs: verdict.allowed ? verdict.resetAtMs : verdict.retryAtMs,
});

function categoryOf(request: FastifyRequest): RateCategory {
  return request.routeOptions.config.rateCategory ?? (READ_METHODS.has(request.method) ? 'read' : 'write');
}

async function limit(limiter: Limiter, request: FastifyRequest, reply: FastifyReply, category: string, counted: boolean) {
  const result = await limiter(request, { increment: counted });
  // Only an allow list answers `isAllowed`, and none is configured.
  if (result.isAllowed) return;
  const nowMs = instantOf(result.key);
  answer(
    reply,
    category,
    result.max,
    { allowed: !result.isExceeded, remaining: result.remaining, atMs: nowMs + result.ttl },
    nowMs,
    counted,
  );
}

/**
 * Where a request stands in its window, as headers; refused and counted, the 429, whose figures
 * the error handler sets as headers. `atMs`: when the window is all forgotten if admitted, when
 * it admits again if refused.
 */
function answer(
  reply: FastifyReply,
  category: string,
  limit: number,
  standing: { allowed: boolean; remaining: number; atMs: number },
  nowMs: number,
  counted: boolean,
) {
  const resetAt = Math.ceil(standing.atMs / 1_000);
  if (counted && !standing.allowed) {
    throw new AppError('rate_limit_exceeded', `Rate limit exceeded: ${limit} ${category} requests per minute`, {
      category,
      limit,
      remaining: 0,
      reset_at: resetAt,
      retry_after_seconds: Math.ceil((standing.atMs - nowMs) / 1_000),
    });
  }
  reply.header('x-ratelimit-limit', limit).header('x-ratelimit-remaining', standing.remaining).header('x-ratelimit-reset', resetAt);
}

/**
 * The plugin hands its store nothing but the key, so the key carries the request's instant:
 * the counters, the headers and a test's clock then agree on the same millisecond.
 */
const keyAt = (subject: string, nowMs: number) => `${subject}@${nowMs}`;
const instantOf = (key: string) => Number(key.slice(key.lastIndexOf('@') + 1));
const subjectOf = (key: string) => key.slice(0, key.lastIndexOf('@'));

/**
 * The plugin's store interface over our counters. It reads `current` against `max` and `ttl`
 * as milliseconds to the reset: an admitted request reports the window's use and when it
 * will all be forgotten; a refused one reports one over the limit and when to retry.
 */
function storeOver(counters: RateCounters) {
  const answer = (key: string, timeWindow: number, max: number, counted: boolean, callback: StoreCallback) => {
    const nowMs = instantOf(key);
    counters.hit(subjectOf(key), { limit: max, windowMs: timeWindow, nowMs }, counted).then(
      (verdict: WindowVerdict) =>
        callback(null, {
          current: verdict.allowed ? max - verdict.remaining : max + 1,
          ttl: (verdict.allowed ? verdict.resetAtMs : verdict.retryAtMs) - nowMs,
        }),
      (error: Error) => callback(error),
    );
  };
  return class CountersStore implements FastifyRateLimitStore {
    incr(key: string, callback: StoreCallback, timeWindow: number, max: number) {
      answer(key, timeWindow, max, true, callback);
    }

    /** What `{ increment: false }` calls: the window as it stands, nothing counted. */
    read(key: string, callback: StoreCallback, timeWindow: number, max: number) {
      answer(key, timeWindow, max, false, callback);
    }

    child() {
      return this;
    }
  };
}
