import { Type } from '@sinclair/typebox';
import { createUser, deleteUser, listUsers, updateUser } from '@agov/domain';
import { ACCESS } from '../../access.js';
import { presentUser } from '@agov/domain';
import { Data, IdParams, PagedList, PageQuery } from '../../schemas/common.js';
import { CreateUserBody, UpdateUserBody, User } from '../../schemas/identity.js';
import type { Routes } from '../types.js';

export const userRoutes: Routes = async (app, { deps }) => {
  const config = { access: ACCESS.admin };
  const tags = ['users'];

  app.get(
    '/users',
    { config, schema: { operationId: 'listUsers', tags, querystring: Type.Object(PageQuery), response: { 200: PagedList(User) } } },
    async (request) => {
      const page = await listUsers(deps, request.principal, request.query);
      return { data: page.items.map(presentUser), pagination: { total: page.total, ...request.query } };
    },
  );

  app.post(
    '/users',
    { config, schema: { operationId: 'createUser', tags, body: CreateUserBody, response: { 201: Data(User) } } },
    async (request, reply) => reply.status(201).send({ data: presentUser(await createUser(deps, request.principal, request.body)) }),
  );

  app.patch(
    '/users/:id',
    { config, schema: { operationId: 'updateUser', tags, params: IdParams, body: UpdateUserBody, response: { 200: Data(User) } } },
    async (request) => ({ data: presentUser(await updateUser(deps, request.principal, request.params.id, request.body)) }),
  );

  app.delete(
    '/users/:id',
    { config, schema: { operationId: 'deleteUser', tags, params: IdParams, response: { 204: Type.Null() } } },
    async (request, reply) => {
      await deleteUser(deps, request.principal, request.params.id);
      return reply.status(204).send(null);
    },
  );
};
