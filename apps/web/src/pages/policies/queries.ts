import { api, unwrap } from '../../api/client';
import type { paths } from '@agov/sdk';

export type RuleBody = paths['/api/v1/policies']['post']['requestBody']['content']['application/json'];
export const EFFECTS = ['allow', 'approval_required', 'deny'] as const;

export function fetchRule(id: string) {
  return unwrap(api.GET('/api/v1/policies/{id}', { params: { path: { id } } }));
}

export type Rule = Awaited<ReturnType<typeof fetchRule>>['data'];

/** The period the shadow report and the what-if look back over unless told otherwise. */
export const WEEK_MS = 7 * 24 * 60 * 60 * 1000;
