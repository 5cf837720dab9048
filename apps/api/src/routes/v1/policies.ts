import {
  createPolicyRule,
  deactivatePolicyRule,
  dryRun,
  getPolicyRule,
  listPolicyRules,
  listPolicyVersions,
  presentDryRun,
  presentPolicy,
  presentPolicyVersion,
  updatePolicyRule,
} from '@agov/domain';
import { Type } from '@sinclair/typebox';
import { ACCESS } from '../../access.js';
import { Data, IdParams, PagedList, PageQuery } from '../../schemas/common.js';
import { DryRunBody, DryRunResponse } from '../../schemas/evaluation.js';
import { CreatePolicyBody, PolicyListQuery, PolicyRule, PolicyVersion, UpdatePolicyBody } from '../../schemas/policies.js';
import type { Routes } from '../types.js';

export const policyRoutes: Routes = async (app, { deps }) => {
  const tags = ['policies'];
  const read = { access: ACCESS.policiesRead };
  const write = { access: ACCESS.policiesWrite };

  app.get(
    '/policies',
    {
      config: read,
      schema: { operationId: 'listPolicyRules', tags, querystring: PolicyListQuery, response: { 200: PagedList(PolicyRule) } },
    },
    async (request) => {
      const { limit, offset, ...filters } = request.query;
      const page = await listPolicyRules(deps, request.principal, filters, { limit, offset });
      return { data: page.items.map(presentPolicy), pagination: { total: page.total, limit, offset } };
    },
  );

  app.post(
    '/policies',
    { config: write, schema: { operationId: 'createPolicyRule', tags, body: CreatePolicyBody, response: { 201: Data(PolicyRule) } } },
    async (request, reply) =>
      reply.status(201).send({ data: presentPolicy(await createPolicyRule(deps, request.principal, request.body)) }),
  );

  app.get(
    '/policies/:id',
    { config: read, schema: { operationId: 'getPolicyRule', tags, params: IdParams, response: { 200: Data(PolicyRule) } } },
    async (request) => ({
      data: presentPolicy(await getPolicyRule(deps, request.principal, request.params.id)),
    }),
  );

  app.patch(
    '/policies/:id',
    {
      config: write,
      schema: { operationId: 'updatePolicyRule', tags, params: IdParams, body: UpdatePolicyBody, response: { 200: Data(PolicyRule) } },
    },
    async (request) => ({ data: presentPolicy(await updatePolicyRule(deps, request.principal, request.params.id, request.body)) }),
  );

  app.delete(
    '/policies/:id',
    { config: write, schema: { operationId: 'deactivatePolicyRule', tags, params: IdParams, response: { 200: Data(PolicyRule) } } },
    async (request) => ({ data: presentPolicy(await deactivatePolicyRule(deps, request.principal, request.params.id)) }),
  );

  app.get(
    '/policies/:id/versions',
    {
      config: read,
      schema: {
        operationId: 'listPolicyRuleVersions',
        tags,
        params: IdParams,
        querystring: Type.Object(PageQuery),
        response: { 200: PagedList(PolicyVersion) },
      },
    },
    async (request) => {
      const page = await listPolicyVersions(deps, request.principal, request.params.id, request.query);
      return { data: page.items.map(presentPolicyVersion), pagination: { total: page.total, ...request.query } };
    },
  );

  app.post(
    '/policies/test',
    { config: read, schema: { operationId: 'testPolicyRules', tags, body: DryRunBody, response: { 200: DryRunResponse } } },
    async (request) => presentDryRun(await dryRun(deps, request.principal.tenantId, request.body)),
  );
};
