import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '@agov/config';
import {
  AppError,
  authorize,
  developmentPrincipal,
  principalOfApiKey,
  missedSince,
  principalOfSession,
  StaleCaches,
  type Access,
  type Deps,
  type Principal,
} from '@agov/domain';
import { PUBLIC, type RouteAccess } from '../access.js';
import type { RequestLimits } from './rate-limit.js';

export const SESSION_COOKIE = 'agov_session';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
    /**
     * The route's handler ends in one write that checks the caches itself (see `onFreshCaches`):
     * a request it authenticates skips reading the invalidation clock first.
     */
    checksCachesAtWrite?: boolean;
  }
  interface FastifyRequest {
    /** Set by the auth hook on every route that is not public. */
    principal: Principal;
    /**
     * On a route that `checksCachesAtWrite`, how far the process had heard of invalidations when
     * the request was authenticated on its caches unchecked; null once they have been checked.
     */
    heardThrough: number | null;
  }
}

/**
 * Authenticates each request (API key, session cookie, or the development bypass) and checks
 * it against the access its route declares. A route that declares no access is a mistake,
 * caught when the route is registered rather than when someone calls it. Each request counts
 * against a rate limit between authentication and authorization: its tenant's once it is
 * known, else its client address's (so refused credentials cannot be tried at speed either).
 * A route whose tenant limit its handler judges (`deferredLimit`) has it prepared here.
 */
export function installAuth(app: FastifyInstance, deps: Deps, config: Pick<Config, 'mode'>, limits: RequestLimits): void {
  app.decorateRequest('principal', null as never);
  app.decorateRequest('heardThrough', null);

  app.addHook('onRoute', (route) => {
    const access = route.config?.access;
    if (access === undefined && !route.url.startsWith('/docs')) {
      throw new Error(`Route ${route.method} ${route.url} declares no access`);
    }
    // Only a route that checks its caches at its write skips their check before the limit is prepared.
    if (route.config?.deferredLimit && !route.config.checksCachesAtWrite) {
      throw new Error(`Route ${route.method} ${route.url} defers its limit but does not check its caches at its write`);
    }
  });

  app.addHook('onRequest', async (request, reply) => {
    const access = request.routeOptions.config.access;
    if (access === undefined || access === PUBLIC) return limits.anonymous(request, reply);
    await authenticateAndLimit(request, reply, deps, config, limits);
    try {
      authorize(request.principal, access);
    } catch (error) {
      if (request.heardThrough === null) throw error;
      await authorizeOnFreshCaches(request, deps, config);
    }
  });
}

/**
 * Runs `decide` on a route that `checksCachesAtWrite`: first on the caches the request was
 * authenticated on, unchecked, when it was; `decide` must then write only if no change has
 * committed since (else throw `StaleCaches`). Should it throw that, or fail in any way before
 * the tenant's limit has judged the request while a change has committed since, the request
 * is authenticated and decided again once the caches hold every change committed before it
 * began. A refusal by the limit stands as judged, and is never judged twice.
 */
export async function onFreshCaches<T>(
  request: FastifyRequest,
  deps: Deps,
  config: Pick<Config, 'mode'>,
  decide: (heardThrough: number | null) => Promise<T>,
): Promise<T> {
  const heardThrough = request.heardThrough;
  if (heardThrough === null) return decide(null);
  try {
    return await decide(heardThrough);
  } catch (error) {
    if (!(error instanceof StaleCaches)) {
      if (request.admission === null || !(await missedSince(deps.freshness, heardThrough))) throw error;
    }
    await authorizeOnFreshCaches(request, deps, config);
    return decide(null);
  }
}

/** Authenticates and authorizes the request again, on caches that hold every change committed before now. */
async function authorizeOnFreshCaches(request: FastifyRequest, deps: Deps, config: Pick<Config, 'mode'>): Promise<void> {
  request.heardThrough = null;
  await deps.freshness.ensure();
  request.principal = await principalOf(request, deps, config);
  // Only the auth hook of a route that is not public leaves caches unchecked (`heardThrough`).
  authorize(request.principal, request.routeOptions.config.access as Access);
}

/**
 * Authenticates the request and counts it against its tenant's limit, or, refused, against its
 * address. Caches are trusted once they hold every change committed before the request began
 * (the invalidation clock's read). When they name a valid credential as they are, the tenant's
 * limit is judged beside that read rather than after it, and should the read bring a change
 * this process had not heard of, the credential is looked at again and the limit judged again
 * if the tenant's plan changed: what counts is what the sequence would have counted. On a route
 * that `checksCachesAtWrite` the read is skipped; its write checks instead. A refusal writes
 * nothing that could be checked against the clock: it is answered on checked caches only.
 */
async function authenticateAndLimit(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: Deps,
  config: Pick<Config, 'mode'>,
  limits: RequestLimits,
): Promise<void> {
  const heardThrough = deps.freshness.heardSoFar();
  const unchecked = heardThrough === null ? null : await principalOf(request, deps, config).catch(() => null);
  if (heardThrough === null || unchecked === null) {
    try {
      await deps.freshness.ensure();
      request.principal = await principalOf(request, deps, config);
    } catch (error) {
      return refused(request, reply, limits, error);
    }
    return limits.tenant(request, reply);
  }
  request.principal = unchecked;
  if (request.routeOptions.config.checksCachesAtWrite) {
    request.heardThrough = heardThrough;
    return limits.tenant(request, reply);
  }
  const missed = missedSince(deps.freshness, heardThrough);
  const [checked, counted] = await Promise.allSettled([missed, limits.tenantBeside(request, reply, missed)]);
  try {
    if (checked.status === 'rejected') throw checked.reason;
    if (checked.value) request.principal = await principalOf(request, deps, config);
  } catch (error) {
    if (counted.status === 'fulfilled') await counted.value.withdraw();
    return refused(request, reply, limits, error);
  }
  if (counted.status === 'rejected') throw counted.reason;
  counted.value.answer();
}

/** A request refused before it was authenticated counts against its address, then gets the refusal. */
async function refused(request: FastifyRequest, reply: FastifyReply, limits: RequestLimits, error: unknown): Promise<never> {
  await limits.anonymous(request, reply);
  throw error;
}

/** The principal the request's credentials name, from the caches as they are. */
async function principalOf(request: FastifyRequest, deps: Deps, config: Pick<Config, 'mode'>): Promise<Principal> {
  if (config.mode === 'development' && request.headers['x-dev-bypass'] === 'true') {
    return developmentPrincipal(deps);
  }

  const authorization = request.headers.authorization;
  if (authorization !== undefined) {
    const [scheme, token] = authorization.split(' ');
    // A header in another scheme, or without a token, names no key: refused as a wrong key is.
    return principalOfApiKey(deps, scheme?.toLowerCase() === 'bearer' && token ? token : undefined);
  }

  const sessionToken = request.cookies[SESSION_COOKIE];
  if (sessionToken) {
    const principal = await principalOfSession(deps, sessionToken);
    // No cross-site form can set this header, and no CORS preflight grants it: CSRF-safe.
    if (!SAFE_METHODS.has(request.method) && request.headers['x-requested-with'] !== 'XMLHttpRequest') {
      throw new AppError('forbidden', 'Cookie-authenticated changes must send X-Requested-With: XMLHttpRequest');
    }
    return principal;
  }

  throw new AppError('unauthorized', 'Authentication required: send Authorization: Bearer <API key> or sign in');
}
