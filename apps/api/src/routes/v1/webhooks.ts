import { Type } from '@sinclair/typebox';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  presentCreatedWebhookEndpoint,
  presentWebhookDelivery,
  presentWebhookEndpoint,
  presentWebhookTestResult,
  sendTestWebhook,
  updateWebhookEndpoint,
} from '@agov/domain';
import { ACCESS } from '../../access.js';
import { noBody } from '../../plugins/validation.js';
import { Data, IdParams } from '../../schemas/common.js';
import {
  CreatedWebhookEndpoint,
  CreateWebhookBody,
  DeliveryListQuery,
  UpdateWebhookBody,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookTestResult,
} from '../../schemas/webhooks.js';
import type { Routes } from '../types.js';

export const webhookRoutes: Routes = async (app, { deps }) => {
  const config = { access: ACCESS.admin };
  const tags = ['webhooks'];

  app.post(
    '/webhooks',
    { config, schema: { operationId: 'createWebhook', tags, body: CreateWebhookBody, response: { 201: Data(CreatedWebhookEndpoint) } } },
    async (request, reply) =>
      reply.status(201).send({ data: presentCreatedWebhookEndpoint(await createWebhookEndpoint(deps, request.principal, request.body)) }),
  );

  // The spec shows this list without a pagination object: a tenant has a handful of endpoints.
  app.get(
    '/webhooks',
    { config, schema: { operationId: 'listWebhooks', tags, response: { 200: Data(Type.Array(WebhookEndpoint)) } } },
    async (request) => ({
      data: (await listWebhookEndpoints(deps, request.principal)).map(presentWebhookEndpoint),
    }),
  );

  app.get(
    '/webhooks/:id',
    { config, schema: { operationId: 'getWebhook', tags, params: IdParams, response: { 200: Data(WebhookEndpoint) } } },
    async (request) => ({
      data: presentWebhookEndpoint(await getWebhookEndpoint(deps, request.principal, request.params.id)),
    }),
  );

  app.patch(
    '/webhooks/:id',
    {
      config,
      schema: { operationId: 'updateWebhook', tags, params: IdParams, body: UpdateWebhookBody, response: { 200: Data(WebhookEndpoint) } },
    },
    async (request) => ({
      data: presentWebhookEndpoint(await updateWebhookEndpoint(deps, request.principal, request.params.id, request.body)),
    }),
  );

  app.delete(
    '/webhooks/:id',
    { config, schema: { operationId: 'deleteWebhook', tags, params: IdParams, response: { 204: Type.Null() } } },
    async (request, reply) => {
      await deleteWebhookEndpoint(deps, request.principal, request.params.id);
      return reply.status(204).send(null);
    },
  );

  // Newest first and capped by `limit`, without a pagination object, as the spec shows it.
  app.get(
    '/webhooks/:id/deliveries',
    {
      config,
      schema: {
        operationId: 'listWebhookDeliveries',
        tags,
        params: IdParams,
        querystring: DeliveryListQuery,
        response: { 200: Data(Type.Array(WebhookDelivery)) },
      },
    },
    async (request) => ({
      data: (await listWebhookDeliveries(deps, request.principal, request.params.id, request.query)).map(presentWebhookDelivery),
    }),
  );

  // Sent even when the endpoint is inactive: an admin asked for it explicitly. No delivery is recorded.
  app.post(
    '/webhooks/:id/test',
    {
      config,
      preValidation: noBody,
      schema: { operationId: 'sendTestWebhook', tags, params: IdParams, response: { 200: WebhookTestResult } },
    },
    async (request) => presentWebhookTestResult(await sendTestWebhook(deps, request.principal, request.params.id)),
  );
};
