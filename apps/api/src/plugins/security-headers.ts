import type { FastifyInstance, FastifyReply } from 'fastify';
import helmet, { contentSecurityPolicy, type HelmetOptions } from 'helmet';
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '@agov/config';

type Directives = Record<string, string[]>;

/** What every page allows: its own origin, nothing inline, no eval, no plugins, no framing. */
const BASE_POLICY: Directives = {
  'default-src': ["'self'"],
  'base-uri': ["'none'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
  'object-src': ["'none'"],
};

/**
 * The `<style>` elements React Aria adds on its own (usePress, so that a tap is not held back by
 * double-tap zoom; usePreventScroll, on iOS while a dialog is open), let in by their hashes. Should
 * a new React Aria change them, the browser test that walks the dashboard reports the violation.
 */
const REACT_ARIA_STYLES = [
  '@layer {\n  [data-react-aria-pressable] {\n    touch-action: pan-x pan-y pinch-zoom;\n  }\n}',
  '@layer {\n  * {\n    overscroll-behavior: contain;\n  }\n}',
];
const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/**
 * The policy of the dashboard and of every API answer. The built dashboard loads its own script
 * files and one stylesheet, and nothing inline: the styles it sets from JavaScript go through
 * the CSSOM, which a policy does not govern. It uses no fonts, images or frames from elsewhere.
 * A JSON answer loads nothing, so the same policy serves it, and an error from any path carries
 * one policy.
 */
const APP_POLICY: Directives = { ...BASE_POLICY, 'style-src': ["'self'", ...REACT_ARIA_STYLES.map(hashOf)] };

/** Swagger UI at /docs: its icons, drawn by its stylesheet and its script, are data: URLs. */
const DOCS_POLICY: Directives = { ...BASE_POLICY, 'img-src': ["'self'", 'data:'] };

const ONE_YEAR_S = 31_536_000;

/**
 * The headers every answer carries. Helmet's other defaults stay (cross-origin isolation of
 * windows and resources, no DNS prefetch, no MIME sniffing). The Referer is never sent: the
 * dashboard's addresses carry resource ids, filters and one-time tokens, and nothing in the
 * service reads it (CSRF defence is the `X-Requested-With` header). HSTS only when people reach
 * the service over https, for this host alone: subdomains are the operator's to pin.
 */
export function securityHeaderOptions(config: Config): HelmetOptions {
  return {
    contentSecurityPolicy: { useDefaults: false, directives: APP_POLICY },
    referrerPolicy: { policy: 'no-referrer' },
    xFrameOptions: { action: 'deny' },
    strictTransportSecurity: config.publicUrl.startsWith('https:') ? { maxAge: ONE_YEAR_S, includeSubDomains: false } : false,
  };
}

/** Sets a header middleware's headers on an answer. */
export type SetHeaders = (reply: FastifyReply) => void;

/**
 * Helmet's headers for `options`, worked out once. (Its Fastify plugin builds its middleware
 * again for every request, parsing the policy each time; running the built middleware on each
 * answer still costs a call to Node's `setHeader`, with its checks, per header: 4–5 % of the
 * API's CPU in a dry run.) Every directive here is a fixed string, so every answer gets the same.
 */
export function securityHeaders(options: HelmetOptions): SetHeaders {
  return headerSetter(helmet(options));
}

/** For /docs' own routes: replaces the policy every answer gets with the API reference's. */
export const setDocsPolicy: SetHeaders = headerSetter(contentSecurityPolicy({ useDefaults: false, directives: DOCS_POLICY }));

function headerSetter(middleware: ReturnType<typeof helmet>): SetHeaders {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: string) => {
      headers[name.toLowerCase()] = value;
    },
    // Helmet takes X-Powered-By off; this server never sets it.
    removeHeader: () => {},
  };
  middleware({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
  });
  return (reply) => {
    reply.headers(headers);
  };
}

/**
 * Sets the headers on every answer, first thing. Answers Fastify sends before routing (a path
 * it cannot decode) never reach this hook: the framework error handler sets them itself.
 */
export function installSecurityHeaders(app: FastifyInstance, setHeaders: SetHeaders): void {
  app.addHook('onRequest', (_request, reply, done) => {
    setHeaders(reply);
    done();
  });
}
