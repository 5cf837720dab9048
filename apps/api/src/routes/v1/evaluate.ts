import { evaluate, presentEvaluation } from '@agov/domain';
import { ACCESS } from '../../access.js';
import { onFreshCaches } from '../../plugins/auth.js';
import { EvaluateBody, EvaluateResponse } from '../../schemas/evaluation.js';
import type { Routes } from '../types.js';

export const evaluationRoutes: Routes = async (app, { deps, config }) => {
  app.post(
    '/evaluate',
    {
      config: { access: ACCESS.evaluate, rateCategory: 'evaluate', deferredLimit: true, idempotent: true, checksCachesAtWrite: true },
      schema: { operationId: 'evaluate', tags: ['evaluate'], body: EvaluateBody, response: { 200: EvaluateResponse } },
    },
    async (request) => {
      // The limit is prepared by the auth hook for this route (`deferredLimit`), judged by evaluate
      // with its first call to the counters; the write checks the caches (`checksCachesAtWrite`).
      const result = await onFreshCaches(request, deps, config, (heardThrough) =>
        evaluate(deps, request.principal, request.body, { admission: request.admission, heardThrough }),
      );
      request.decision = result.decision;
      return presentEvaluation(result);
    },
  );
};
