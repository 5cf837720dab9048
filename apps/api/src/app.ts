import cookie from '@fastify/cookie';
import sensible from '@fastify/sensible';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Runtime } from '@agov/runtime';
import { installAuth } from './plugins/auth.js';
import { installDashboard } from './plugins/dashboard.js';
import { clientErrorHandler, installErrorHandling, onFrameworkError } from './plugins/errors.js';
import { installIdempotency } from './plugins/idempotency.js';
import { installMetrics } from './plugins/metrics.js';
import { installOpenApi } from './plugins/openapi.js';
import { installRateLimits } from './plugins/rate-limit.js';
import { installSecurityHeaders, securityHeaderOptions, securityHeaders } from './plugins/security-headers.js';
import { installValidation } from './plugins/validation.js';
import { lazyRequestLogger } from './request-logger.js';
import { healthRoutes } from './routes/health.js';
import { wellKnownRoutes } from './routes/well-known.js';
import { agentRoutes } from './routes/v1/agents.js';
import { apiKeyRoutes } from './routes/v1/api-keys.js';
import { authRoutes } from './routes/v1/auth.js';
import { billingRoutes } from './routes/v1/billing.js';
import { chatRoutes } from './routes/v1/chat.js';
import { emailConfirmationRoutes } from './routes/v1/email-confirmations.js';
import { approvalRoutes } from './routes/v1/approvals.js';
import { delegationRoutes } from './routes/v1/delegations.js';
import { evaluationRoutes } from './routes/v1/evaluate.js';
import { exportRoutes } from './routes/v1/exports.js';
import { grantRoutes } from './routes/v1/grants.js';
import { traceRoutes } from './routes/v1/traces.js';
import { policyRoutes } from './routes/v1/policies.js';
import { settingsRoutes } from './routes/v1/settings.js';
import { userRoutes } from './routes/v1/users.js';
import { webhookRoutes } from './routes/v1/webhooks.js';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** `TRUST_PROXY` in the shapes Fastify's types take: a hop count as the function Fastify makes of one. */
function trustProxyOf(trust: Runtime['config']['trustProxy']) {
  if (typeof trust === 'number') return (_address: string, hop: number) => hop < trust;
  return typeof trust === 'object' ? [...trust] : trust;
}

/** Builds the HTTP application on a runtime. It never listens: main.ts and tests decide that. */
export async function buildApp(runtime: Runtime, logger: Logger): Promise<FastifyInstance> {
  const setSecurityHeaders = securityHeaders(securityHeaderOptions(runtime.config));
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    childLoggerFactory: lazyRequestLogger,
    bodyLimit: 1_048_576,
    // How long a client may take to send a whole request, headers and body: a slow sender
    // gets 408 (clientErrorHandler) and is cut off. Node stops the clock once the request is
    // in, so a response (a long export streaming out) is not limited by it; statements are,
    // one by one, through DATABASE_STATEMENT_TIMEOUT_MS. Given to Node's constructor too, so
    // that it derives `headersTimeout` from it: left at 60 s, a headers timeout longer than the
    // request timeout stops Node (20) from timing out a body that stalls. Node looks for overdue
    // requests every `connectionsCheckingInterval` (30 s by default): at most every second here.
    requestTimeout: runtime.config.requestTimeoutMs,
    http: {
      requestTimeout: runtime.config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, runtime.config.requestTimeoutMs),
    },
    clientErrorHandler: clientErrorHandler(logger as FastifyBaseLogger),
    // A caller's own request id is kept when it is safe to echo; otherwise we mint one.
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true },
    // Whose X-Forwarded-For to believe for `request.ip`, which the per-address rate limit counts by.
    trustProxy: trustProxyOf(runtime.config.trustProxy),
    frameworkErrors: (error, request, reply) => {
      setSecurityHeaders(reply);
      return onFrameworkError(error, request, reply);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Hooks on every request take `done` rather than return a promise: one microtask fewer each.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    // Responses may carry secrets (keys at creation) and tenant data: never cache them.
    reply.cacheControl('no-store');
    done();
  });

  // Closing waits for the requests in flight; each answered then takes its connection with it,
  // which kept alive would hold the close until it idled out (long polls, exports, any request).
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });

  await app.register(sensible);
  await app.register(cookie);
  installSecurityHeaders(app, setSecurityHeaders);
  installValidation(app);
  const limits = await installRateLimits(app, runtime.deps);
  installErrorHandling(app, runtime.deps, limits);
  installAuth(app, runtime.deps, runtime.config, limits);
  installIdempotency(app, runtime.deps, limits);
  installMetrics(app, runtime.metrics);
  await installOpenApi(app, runtime.config.publicUrl);

  const options = { deps: runtime.deps, config: runtime.config };
  await app.register(healthRoutes, options);
  await app.register(wellKnownRoutes, options);
  await app.register(
    async (v1) => {
      await v1.register(authRoutes, options);
      await v1.register(userRoutes, options);
      await v1.register(apiKeyRoutes, options);
      await v1.register(evaluationRoutes, options);
      await v1.register(traceRoutes, options);
      await v1.register(exportRoutes, options);
      await v1.register(approvalRoutes, options);
      await v1.register(delegationRoutes, options);
      await v1.register(grantRoutes, options);
      await v1.register(agentRoutes, options);
      await v1.register(policyRoutes, options);
      await v1.register(webhookRoutes, options);
      await v1.register(billingRoutes, options);
      await v1.register(chatRoutes, options);
      await v1.register(settingsRoutes, options);
      await v1.register(emailConfirmationRoutes, options);
    },
    { prefix: '/api/v1' },
  );
  await installDashboard(app);
  return app;
}
