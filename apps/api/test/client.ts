import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { type Credential, request, type TestApp } from './harness.js';

/** The test client: one call per HTTP method, each answering the raw inject response. */
export interface Client {
  get(credential: Credential, url: string): Promise<LightMyRequestResponse>;
  /** With no `payload` the request has no body. */
  post(credential: Credential, url: string, payload?: unknown): Promise<LightMyRequestResponse>;
  patch(credential: Credential, url: string, payload: unknown): Promise<LightMyRequestResponse>;
  put(credential: Credential, url: string, payload: unknown): Promise<LightMyRequestResponse>;
  delete(credential: Credential, url: string): Promise<LightMyRequestResponse>;
}

/**
 * A client of `app`, authenticating each call as `credential` (see harness.ts's `request`).
 * Given a test app (`useTestApp`'s), it reads the app at each call, so it can be made before
 * the app exists.
 */
export function client(of: FastifyInstance | Pick<TestApp, 'app'>): Client {
  const app = () => ('inject' in of ? of : of.app);
  return {
    get: (credential, url) => request(app(), credential, { method: 'GET', url }),
    post: (credential, url, payload) =>
      request(app(), credential, { method: 'POST', url, ...(payload === undefined ? {} : { payload: payload as object }) }),
    patch: (credential, url, payload) => request(app(), credential, { method: 'PATCH', url, payload: payload as object }),
    put: (credential, url, payload) => request(app(), credential, { method: 'PUT', url, payload: payload as object }),
    delete: (credential, url) => request(app(), credential, { method: 'DELETE', url }),
  };
}
