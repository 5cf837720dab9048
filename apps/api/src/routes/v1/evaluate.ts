import { evaluate, presentEvaluation } from '@agov/domain';
import { ACCESS } from '../../access.js';
import { EvaluateBody, EvaluateResponse } from '../../schemas/evaluation.js';
import type { Routes } from '../types.js';

export const evaluationRoutes: Routes = async (app, { deps }) => {
  app.post(
    '/evaluate',
    {
      config: { access: ACCESS.evaluate, rateCategory: 'evaluate', deferredLimit: true, idempotent: true },
      schema: { operationId: 'evaluate', tags: ['evaluate'], body: EvaluateBody, response: { 200: EvaluateResponse } },
    },
    async (request) => {
      // Prepared by the auth hook for this route (`deferredLimit`), judged by evaluate with its first call to the counters.
      const result = await evaluate(deps, request.principal, request.body, request.admission!);
      request.decision = result.decision;
      return presentEvaluation(result);
    },
  );
};
