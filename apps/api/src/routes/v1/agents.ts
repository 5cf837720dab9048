import {
  createAgent,
  getAgentWithStats,
  listAgents,
  moveAgent,
  presentAgent,
  agentBudgetUse,
  presentAgentDetail,
  updateAgent,
  type LifecycleAction,
} from '@agov/domain';
import { ACCESS } from '../../access.js';
import { noBody } from '../../plugins/validation.js';
import { Agent, AgentDetail, AgentListQuery, CreateAgentBody, UpdateAgentBody } from '../../schemas/agents.js';
import { Data, IdParams, PagedList } from '../../schemas/common.js';
import type { Routes } from '../types.js';

const LIFECYCLE_ACTIONS: readonly LifecycleAction[] = ['suspend', 'revoke', 'reactivate'];

export const agentRoutes: Routes = async (app, { deps }) => {
  const tags = ['agents'];

  app.get(
    '/agents',
    {
      config: { access: ACCESS.agentsRead },
      schema: { operationId: 'listAgents', tags, querystring: AgentListQuery, response: { 200: PagedList(Agent) } },
    },
    async (request) => {
      const { limit, offset, ...filters } = request.query;
      const page = await listAgents(deps, request.principal, filters, { limit, offset });
      return { data: page.items.map(presentAgent), pagination: { total: page.total, limit, offset } };
    },
  );

  app.post(
    '/agents',
    {
      config: { access: ACCESS.agentsWrite, idempotent: true },
      schema: { operationId: 'createAgent', tags, body: CreateAgentBody, response: { 201: Data(Agent) } },
    },
    async (request, reply) => reply.status(201).send({ data: presentAgent(await createAgent(deps, request.principal, request.body)) }),
  );

  app.get(
    '/agents/:id',
    {
      config: { access: ACCESS.agentsRead },
      schema: { operationId: 'getAgent', tags, params: IdParams, response: { 200: Data(AgentDetail) } },
    },
    async (request) => {
      const [detail, budgets] = await Promise.all([
        getAgentWithStats(deps, request.principal, request.params.id),
        agentBudgetUse(deps, request.principal, request.params.id),
      ]);
      return { data: presentAgentDetail({ ...detail, budgets }) };
    },
  );

  app.patch(
    '/agents/:id',
    {
      config: { access: ACCESS.agentsWrite },
      schema: { operationId: 'updateAgent', tags, params: IdParams, body: UpdateAgentBody, response: { 200: Data(Agent) } },
    },
    async (request) => ({ data: presentAgent(await updateAgent(deps, request.principal, request.params.id, request.body)) }),
  );

  for (const action of LIFECYCLE_ACTIONS) {
    app.post(
      `/agents/:id/${action}`,
      {
        config: { access: ACCESS.agentsLifecycle },
        preValidation: noBody,
        schema: { operationId: `${action}Agent`, tags, params: IdParams, response: { 200: Data(Agent) } },
      },
      async (request) => ({ data: presentAgent(await moveAgent(deps, request.principal, request.params.id, action)) }),
    );
  }
};
