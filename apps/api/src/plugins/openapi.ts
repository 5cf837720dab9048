import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { PUBLIC } from '../access.js';
import { ErrorBody } from '../schemas/common.js';
import { DOCS_HEADERS } from './security-headers.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;

type Operations = Partial<Record<(typeof METHODS)[number], { responses?: Record<string, unknown> }>>;

/** What an operation answers when it fails: the spec's error body. */
const ERROR_RESPONSE = {
  description: 'An error, in the shape every error has',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
};

/** Every error leaves through the one error handler, so every operation fails in the same shape. */
function withErrorResponses<T extends { paths?: object }>(document: T): T {
  for (const operations of Object.values(document.paths ?? {}) as (Operations | undefined)[]) {
    for (const method of METHODS) {
      const operation = operations?.[method];
      if (operation) operation.responses = { ...operation.responses, default: ERROR_RESPONSE };
    }
  }
  return document;
}

/** The OpenAPI document is generated from the route schemas and the error body; nothing is written by hand. */
export async function installOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Agent Governance API', version: '1.0.0', description: 'Governs the actions of AI agents.' },
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'API key: ai_ followed by 64 hex characters' },
          session: { type: 'apiKey', in: 'cookie', name: 'agov_session' },
        },
        schemas: { ErrorBody },
      },
      security: [{ apiKey: [] }, { session: [] }],
    },
    transformObject: (document) => ('openapiObject' in document ? withErrorResponses(document.openapiObject) : document.swaggerObject),
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // Without the top bar, whose Swagger logo carries an inline <style> the policy refuses, and
    // whose box for opening other documents this one-document reference has no use for.
    uiConfig: { layout: 'BaseLayout' },
    uiHooks: {
      onRequest: async (_request, reply) => {
        reply.helmet(DOCS_HEADERS);
      },
    },
  });
  app.get('/openapi.json', { config: { access: PUBLIC }, schema: { hide: true } }, async () => app.swagger());
}
