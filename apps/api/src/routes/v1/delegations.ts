import { createDelegation, listDelegations, presentDelegation, revokeDelegation } from '@agov/domain';
import { ACCESS } from '../../access.js';
import { Data, IdParams } from '../../schemas/common.js';
import { CreateDelegationBody, Delegation, DelegationListQuery } from '../../schemas/delegations.js';
import type { Routes } from '../types.js';
import { Type } from '@sinclair/typebox';

export const delegationRoutes: Routes = async (app, { deps }) => {
  const tags = ['approvals'];
  const config = { access: ACCESS.delegations };

  app.post(
    '/delegations',
    { config, schema: { operationId: 'createDelegation', tags, body: CreateDelegationBody, response: { 201: Data(Delegation) } } },
    async (request, reply) => {
      reply.code(201);
      return { data: presentDelegation(await createDelegation(deps, request.principal, request.body)) };
    },
  );

  app.get(
    '/delegations',
    {
      config,
      schema: {
        operationId: 'listDelegations',
        tags,
        querystring: DelegationListQuery,
        response: { 200: Type.Object({ data: Type.Array(Delegation) }) },
      },
    },
    async (request) => ({
      data: (await listDelegations(deps, request.principal, request.query.current ?? false)).map(presentDelegation),
    }),
  );

  app.delete(
    '/delegations/:id',
    { config, schema: { operationId: 'revokeDelegation', tags, params: IdParams, response: { 200: Data(Delegation) } } },
    async (request) => ({ data: presentDelegation(await revokeDelegation(deps, request.principal, request.params.id)) }),
  );
};
