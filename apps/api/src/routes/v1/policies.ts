import {
  applyRuleSet,
  createPolicyRule,
  deactivatePolicyRule,
  dryRun,
  getPolicyRule,
  getRuleSetRevision,
  listPolicyRules,
  listPolicyVersions,
  presentDryRun,
  presentPolicy,
  presentPolicyVersion,
  presentShadowReportEntry,
  presentSimulation,
  shadowReport,
  simulate,
  timeRange,
  updatePolicyRule,
} from '@agov/domain';
import { Type } from '@sinclair/typebox';
import { ACCESS } from '../../access.js';
import { Data, IdParams, PagedList, PageQuery } from '../../schemas/common.js';
import { DryRunBody, DryRunResponse } from '../../schemas/evaluation.js';
import {
  ApplyRuleSetBody,
  CreatePolicyBody,
  PolicyListQuery,
  PolicyRule,
  PolicyVersion,
  RuleSetApplied,
  RuleSetRevision,
  ShadowReportEntry,
  ShadowReportQuery,
  Simulation,
  SimulateBody,
  UpdatePolicyBody,
} from '../../schemas/policies.js';
import type { Routes } from '../types.js';

export const policyRoutes: Routes = async (app, { deps, config }) => {
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
    {
      config: { ...write, idempotent: true },
      schema: { operationId: 'createPolicyRule', tags, body: CreatePolicyBody, response: { 201: Data(PolicyRule) } },
    },
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

  // A fixed path: the router prefers it to `/policies/:id`.
  app.get(
    '/policies/shadow-report',
    {
      config: read,
      schema: {
        operationId: 'getShadowReport',
        tags,
        querystring: ShadowReportQuery,
        response: { 200: Data(Type.Array(ShadowReportEntry)) },
      },
    },
    async (request) => {
      const { from, to, agent_id } = request.query;
      const filters = { ...timeRange({ from, to }), ...(agent_id ? { agent_id } : {}) };
      return { data: (await shadowReport(deps, request.principal, filters)).map(presentShadowReportEntry) };
    },
  );

  app.post(
    '/policies/test',
    { config: read, schema: { operationId: 'testPolicyRules', tags, body: DryRunBody, response: { 200: DryRunResponse } } },
    async (request) => presentDryRun(await dryRun(deps, request.principal.tenantId, request.body)),
  );

  // Writes nothing, yet policies:write (CONTRACT): it is for those who change rules, and reads as much as an export.
  app.post(
    '/policies/simulate',
    { config: write, schema: { operationId: 'simulatePolicyChanges', tags, body: SimulateBody, response: { 200: Data(Simulation) } } },
    async (request) => {
      const { from, to, agent_id, changes } = request.body;
      const simulation = await simulate(
        deps,
        request.principal,
        { ...timeRange({ from, to }), ...(agent_id ? { agent_id } : {}), changes },
        config.simulateMaxEvaluations,
      );
      return { data: presentSimulation(simulation) };
    },
  );

  app.get(
    '/policies/revision',
    { config: read, schema: { operationId: 'getPolicyRevision', tags, response: { 200: Data(RuleSetRevision) } } },
    async (request) => ({ data: { revision: await getRuleSetRevision(deps, request.principal) } }),
  );

  app.post(
    '/policies/apply',
    { config: write, schema: { operationId: 'applyPolicyChanges', tags, body: ApplyRuleSetBody, response: { 200: Data(RuleSetApplied) } } },
    async (request) => {
      const applied = await applyRuleSet(deps, request.principal, request.body);
      const ids = (rules: { id: string }[]) => rules.map(({ id }) => id);
      return {
        data: { revision: applied.revision, created: ids(applied.created), updated: ids(applied.updated), deleted: ids(applied.deleted) },
      };
    },
  );
};
