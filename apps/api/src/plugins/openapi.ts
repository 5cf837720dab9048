import { readFileSync } from 'node:fs';
import swagger, { type FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { PUBLIC } from '../access.js';
import { finishDocument, HEADERS, type RouteFacts } from '../openapi/document.js';
import { TAGS } from '../openapi/tags.js';
import { AUDIT_EVENT, WEBHOOKS, WEBHOOK_SCHEMAS } from '../openapi/webhooks.js';
import { ErrorBody } from '../schemas/common.js';
import { setDocsPolicy } from './security-headers.js';

/** One version for the service and its contract: the repository's. */
const ROOT_PACKAGE = new URL('../../../../package.json', import.meta.url);
// Until a release sets one, the repository has no version; OpenAPI requires one.
const VERSION: string = JSON.parse(readFileSync(ROOT_PACKAGE, 'utf8')).version ?? '0.0.0';

const DESCRIPTION = `Governs the actions of AI agents. An agent asks \`POST /api/v1/evaluate\` before it acts and gets
\`allow\`, \`deny\` or \`approval_required\`; a person approves or denies what needs approval; the agent reports
the outcome; every step is recorded in a tamper-evident, hash-chained audit trail that can be verified and exported.

Authenticate with an API key (\`Authorization: Bearer ai_…\`) or, from the dashboard, a session cookie. Every
error has the same body (\`Error\`), every response an \`X-Request-Id\`.

The API guide, \`docs/api-guide.md\` in the service's repository, explains the concepts, the decision flow,
verifying the hash chain, webhooks and their signatures, errors, limits and pagination.`;

/** The OpenAPI document is generated from the route schemas, the operation catalogue and the error body; nothing is written twice. */
export async function installOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  const facts = new Map<string, RouteFacts>();
  app.addHook('onRoute', (route) => {
    const operationId = route.schema?.operationId;
    const access = route.config?.access;
    if (typeof operationId === 'string' && access !== undefined)
      facts.set(operationId, { access, rateLimited: route.config?.rateLimit !== false, idempotent: route.config?.idempotent === true });
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Agent Governance API',
        version: VERSION,
        description: DESCRIPTION,
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
        contact: { name: 'This installation', url: publicUrl },
      },
      servers: [{ url: publicUrl, description: 'This installation (PUBLIC_URL)' }],
      tags: TAGS,
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'API key: ai_ followed by 64 hex characters' },
          session: { type: 'apiKey', in: 'cookie', name: 'agov_session', description: "The dashboard's session, set by signup and login" },
        },
        schemas: { Error: ErrorBody, AuditEvent: AUDIT_EVENT, ...WEBHOOK_SCHEMAS },
        headers: HEADERS,
      },
      webhooks: WEBHOOKS,
      // The document's own types are stricter about literal types than these generated parts need to be.
    } as FastifyDynamicSwaggerOptions['openapi'],
    transformObject: (document) => ('openapiObject' in document ? finishDocument(document.openapiObject, facts) : document.swaggerObject),
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // Without the top bar, whose Swagger logo carries an inline <style> the policy refuses, and
    // whose box for opening other documents this one-document reference has no use for.
    uiConfig: { layout: 'BaseLayout' },
    uiHooks: {
      onRequest: async (_request, reply) => {
        setDocsPolicy(reply);
      },
    },
  });
  app.get('/openapi.json', { config: { access: PUBLIC }, schema: { hide: true } }, async () => app.swagger());
}
