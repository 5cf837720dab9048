import { sql } from 'drizzle-orm';
import { Type } from '@sinclair/typebox';
import { PUBLIC } from '../access.js';
import type { Routes } from './types.js';

/**
 * For load balancer probes: always 200, as the spec says; `degraded` names what is wrong: the
 * database not answering (requests that need it get 503 until it is back), or rate-limit
 * counters in process memory because Redis is unreachable (every request still served).
 * Probes are not counted against the caller's address (`rateLimit: false`), so they never use
 * up a client's unauthenticated allowance.
 */
export const healthRoutes: Routes = async (app, { deps }) => {
  app.get(
    '/health',
    {
      config: { access: PUBLIC, rateLimit: false },
      schema: {
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
    async (request) => {
      const degraded: ('database' | 'rate_limit_counters')[] = [];
      try {
        await deps.database.db.execute(sql`select 1`);
      } catch (error) {
        // An error that is not the database being away is a defect: the probe says so too.
        if (!deps.databaseAvailability.report(error)) request.log.error({ err: error }, 'health check failed');
        degraded.push('database');
      }
      if (deps.rateLimits.counters.degraded) degraded.push('rate_limit_counters');
      return degraded.length === 0 ? { status: 'ok' as const } : { status: 'degraded' as const, degraded };
    },
  );
};
