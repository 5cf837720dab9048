import type { paths } from '@agov/sdk';
import { api, unwrap } from '../../api/client';

export const delegationsKey = ['delegations'] as const;

/** The organization's delegations neither ended nor revoked, newest first (some may not have started yet). */
export function fetchCurrentDelegations() {
  return unwrap(api.GET('/api/v1/delegations', { params: { query: { current: true } } }));
}

export type Delegation = Awaited<ReturnType<typeof fetchCurrentDelegations>>['data'][number];
export type DelegationBody = paths['/api/v1/delegations']['post']['requestBody']['content']['application/json'];
