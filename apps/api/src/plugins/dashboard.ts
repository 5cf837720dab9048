import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PUBLIC } from '../access.js';

/** apps/web's build, the same two levels up from src/plugins (tests) and dist/plugins (`npm start`). */
export const DASHBOARD_DIR = fileURLToPath(new URL('../../../web/dist/', import.meta.url));

/** Paths the service answers itself: an unknown one is the API's 404, never the dashboard. */
const SERVICE_PATHS = /^\/(api|health|docs|openapi\.json|metrics)(\/|$)/;

const ONE_YEAR_MS = 365 * 24 * 3_600_000;

/**
 * Serves the dashboard (apps/web) when it has been built: hashed assets cached for a year,
 * any other page of the app answered with index.html, which is never cached so a deploy
 * shows at once. Assets are static and public, so they pass no credential check and are not
 * counted against the caller's unauthenticated allowance. Every answer, index.html too, is the
 * `.br` or `.gz` the build wrote beside the file when the browser accepts it (with `Vary:
 * Accept-Encoding`), else the file itself: compressed once at build time, never per request.
 */
export async function installDashboard(app: FastifyInstance, directory = DASHBOARD_DIR): Promise<void> {
  if (!existsSync(`${directory}index.html`)) {
    app.log.warn({ directory }, 'dashboard not built: run `npm run build` to serve it');
    return;
  }
  await app.register(fastifyStatic, { root: directory, serve: false, preCompressed: true });
  const rootFiles = new Set(
    readdirSync(directory, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name),
  );
  const config = { access: PUBLIC, rateLimit: false as const };
  const schema = { hide: true };

  app.get('/assets/*', { config, schema }, (request: FastifyRequest<{ Params: { '*': string } }>, reply) =>
    reply.sendFile(`assets/${request.params['*']}`, { maxAge: ONE_YEAR_MS, immutable: true }),
  );

  const page = (request: FastifyRequest<{ Params: { '*'?: string } }>, reply: FastifyReply) => {
    const path = request.url.split('?')[0]!;
    if (SERVICE_PATHS.test(path)) return reply.callNotFound();
    const file = request.params['*'] ?? '';
    if (file !== 'index.html' && rootFiles.has(file)) return reply.sendFile(file, { maxAge: 3_600_000 });
    return reply.header('cache-control', 'no-cache').sendFile('index.html', { cacheControl: false });
  };
  app.get('/', { config, schema }, page);
  app.get('/*', { config, schema }, page);
}
