import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { PUBLIC } from '../access.js';
import { DOCS_HEADERS } from './security-headers.js';

/** The OpenAPI document is generated from the route schemas; nothing is written by hand. */
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
      },
      security: [{ apiKey: [] }, { session: [] }],
    },
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
