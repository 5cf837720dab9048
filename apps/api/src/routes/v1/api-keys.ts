import { Type } from '@sinclair/typebox';
import { createApiKey, deleteApiKey, listApiKeys, rotateApiKey } from '@agov/domain';
import { ACCESS } from '../../access.js';
import { presentApiKey, presentIssuedApiKey } from '@agov/domain';
import { Data, IdParams, PagedList, PageQuery } from '../../schemas/common.js';
import { ApiKey, CreateApiKeyBody, IssuedApiKey } from '../../schemas/identity.js';
import type { Routes } from '../types.js';

export const apiKeyRoutes: Routes = async (app, { deps }) => {
  const config = { access: ACCESS.admin };
  const tags = ['api-keys'];

  app.get(
    '/api-keys',
    { config, schema: { operationId: 'listApiKeys', tags, querystring: Type.Object(PageQuery), response: { 200: PagedList(ApiKey) } } },
    async (request) => {
      const page = await listApiKeys(deps, request.principal, request.query);
      return { data: page.items.map(presentApiKey), pagination: { total: page.total, ...request.query } };
    },
  );

  app.post(
    '/api-keys',
    { config, schema: { operationId: 'createApiKey', tags, body: CreateApiKeyBody, response: { 201: Data(IssuedApiKey) } } },
    async (request, reply) =>
      reply.status(201).send({ data: presentIssuedApiKey(await createApiKey(deps, request.principal, request.body)) }),
  );

  app.delete(
    '/api-keys/:id',
    { config, schema: { operationId: 'deleteApiKey', tags, params: IdParams, response: { 204: Type.Null() } } },
    async (request, reply) => {
      await deleteApiKey(deps, request.principal, request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/api-keys/:id/rotate',
    { config, schema: { operationId: 'rotateApiKey', tags, params: IdParams, response: { 200: Data(IssuedApiKey) } } },
    async (request) => ({ data: presentIssuedApiKey(await rotateApiKey(deps, request.principal, request.params.id)) }),
  );
};
