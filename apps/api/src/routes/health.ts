import { Type } from '@sinclair/typebox';
import { checkHealth } from '@agov/runtime';
import { PUBLIC } from '../access.js';
import type { Routes } from './types.js';

/**
 * For load balancer probes: always 200, as the spec says; `degraded` names what is wrong, as
 * the runtime's `checkHealth` finds it: the database not answering, or rate-limit counters in
 * process memory because Redis is unreachable. Probes are not counted against the caller's
 * address (`rateLimit: false`), so they never use up a client's unauthenticated allowance.
 */
export const healthRoutes: Routes = async (app, { deps }) => {
  app.get(
    '/health',
    {
      config: { access: PUBLIC, rateLimit: false },
      schema: {
        operationId: 'getHealth',
        tags: ['health'],
        response: {
          200: Type.Union([
            Type.Object({ status: Type.Literal('ok') }),
            Type.Object({
              status: Type.Literal('degraded'),
              degraded: Type.Array(Type.Union([Type.Literal('database'), Type.Literal('rate_limit_counters')])),
            }),
          ]),
        },
      },
    },
    async (request) => checkHealth(deps, (error) => request.log.error({ err: error }, 'health check failed')),
  );
};
