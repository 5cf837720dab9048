import type { FastifyInstance } from 'fastify';
import type { PolicyEffect } from '@agov/domain';
import type { Metrics } from '@agov/runtime';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the evaluate route once it has decided, so its timing can be labelled. */
    decision: PolicyEffect | null;
  }
}

/** Times each evaluation answered 200, by decision, from the request's arrival to the last byte sent. */
export function installMetrics(app: FastifyInstance, metrics: Pick<Metrics, 'evaluated'>): void {
  app.decorateRequest('decision', null);
  app.addHook('onResponse', (request, reply, done) => {
    if (request.decision !== null && reply.statusCode === 200) metrics.evaluated(request.decision, reply.elapsedTime / 1000);
    done();
  });
}
