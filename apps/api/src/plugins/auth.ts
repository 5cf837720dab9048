import type { FastifyInstance, FastifyRequest } from 'fastify';
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
  });

  app.addHook('onRequest', async (request, reply) => {
    const access = request.routeOptions.config.access;
    if (access === undefined || access === PUBLIC) return limits.anonymous(request, reply);
    try {
      request.principal = await authenticate(request, deps, config);
    } catch (error) {
      await limits.anonymous(request, reply);
      throw error;
    }
    await limits.tenant(request, reply);
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

async function authenticate(request: FastifyRequest, deps: Deps, config: Pick<Config, 'mode'>): Promise<Principal> {
  const heardThrough = request.routeOptions.config.checksCachesAtWrite ? deps.freshness.heardSoFar() : null;
  if (heardThrough !== null) {
    // A refusal writes nothing that could be checked against the clock: it is answered on checked caches only.
    const principal = await principalOf(request, deps, config).catch(() => null);
    if (principal) {
      request.heardThrough = heardThrough;
      return principal;
    }
  }
  // Keys, decision inputs and plans may come from caches: first make sure they reflect every
  // change committed before this request began, in whichever process it was made.
  await deps.freshness.ensure();
  return principalOf(request, deps, config);
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
