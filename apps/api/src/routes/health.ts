import { sql } from 'drizzle-orm';
import { Type } from '@sinclair/typebox';
import { PUBLIC } from '../access.js';
import type { Routes } from './types.js';

/**
 * For load balancer probes: 503 when the database does not answer; otherwise 200, `degraded`
 * while something runs on a fallback that still serves every request (rate-limit counters in
 * process memory because Redis is unreachable). Probes are not counted against the caller's
 * address (`rateLimit: false`), so they never use up a client's unauthenticated allowance.
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
            Type.Object({ status: Type.Literal('degraded'), degraded: Type.Array(Type.Literal('rate_limit_counters')) }),
          ]),
          503: Type.Object({ status: Type.Literal('unavailable') }),
        },
      },
    },
    async (request, reply) => {
      try {
        await deps.database.db.execute(sql`select 1`);
      } catch (error) {
        request.log.error({ err: error }, 'health check: database unreachable');
        return reply.status(503).send({ status: 'unavailable' as const });
      }
      if (deps.rateLimits.counters.degraded) return { status: 'degraded' as const, degraded: ['rate_limit_counters' as const] };
      return { status: 'ok' as const };
    },
  );
};
