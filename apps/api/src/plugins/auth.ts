import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '@agov/config';
import { AppError, authorize, developmentPrincipal, principalOfApiKey, principalOfSession, type Deps, type Principal } from '@agov/domain';
import { PUBLIC, type RouteAccess } from '../access.js';
import type { RequestLimits } from './rate-limit.js';

export const SESSION_COOKIE = 'agov_session';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
  interface FastifyRequest {
    /** Set by the auth hook on every route that is not public. */
    principal: Principal;
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
    authorize(request.principal, access);
  });
}

async function authenticate(request: FastifyRequest, deps: Deps, config: Pick<Config, 'mode'>): Promise<Principal> {
  // Keys, decision inputs and plans may come from caches: first make sure they reflect every
  // change committed before this request began, in whichever process it was made.
  await deps.freshness.ensure();
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
