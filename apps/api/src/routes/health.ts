import { sql } from 'drizzle-orm';
import { Type } from '@sinclair/typebox';
import { PUBLIC } from '../access.js';
import type { Routes } from './types.js';

export const healthRoutes: Routes = async (app, { deps }) => {
  app.get(
    '/health',
    {
      config: { access: PUBLIC },
      schema: {
        tags: ['health'],
        response: { 200: Type.Object({ status: Type.Literal('ok') }), 503: Type.Object({ status: Type.Literal('unavailable') }) },
      },
    },
    async (request, reply) => {
      try {
        await deps.database.db.execute(sql`select 1`);
        return { status: 'ok' as const };
      } catch (error) {
        request.log.error({ err: error }, 'health check: database unreachable');
        return reply.status(503).send({ status: 'unavailable' as const });
      }
    },
  );
};
