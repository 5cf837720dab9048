import { api, unwrap } from '../../api/client';

export const tracesKey = ['traces'] as const;

export function fetchTrace(traceId: string) {
  return unwrap(api.GET('/api/v1/traces/{traceId}', { params: { path: { traceId } } }));
}

export function fetchVerification(traceId: string) {
  return unwrap(api.GET('/api/v1/traces/{traceId}/verify', { params: { path: { traceId } } }));
}

export type Trace = Awaited<ReturnType<typeof fetchTrace>>;
export type TraceEvent = Trace['events'][number];
