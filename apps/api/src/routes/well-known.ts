import { publishedGrantKeys } from '@agov/domain';
import { PUBLIC } from '../access.js';
import { Jwks, JwksQuery } from '../schemas/grants.js';
import type { Routes } from './types.js';

/** How long verifiers and caches in between may keep the key set: a rotation's new key reaches them within this. */
const JWKS_MAX_AGE_SECONDS = 300;

/**
 * The public keys that verify a tenant's execution grants, for tools that check grants
 * offline. No credential: public keys are meant to be fetched by anyone holding a grant. An
 * unknown tenant answers an empty set, as a tenant without keys does, so the endpoint tells
 * nobody which tenants exist. Counted against the caller's address, as every public route.
 */
export const wellKnownRoutes: Routes = async (app, { deps }) => {
  app.get(
    '/.well-known/jwks.json',
    {
      config: { access: PUBLIC },
      schema: { operationId: 'fetchJwks', tags: ['grants'], querystring: JwksQuery, response: { 200: Jwks } },
    },
    async (request, reply) => {
      reply.header('cache-control', `public, max-age=${JWKS_MAX_AGE_SECONDS}`);
      return { keys: await publishedGrantKeys(deps, request.query.tenant_id) };
    },
  );
};
