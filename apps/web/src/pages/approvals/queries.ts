import { api, unwrap } from '../../api/client';

export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired';
export const STATUSES: readonly ApprovalStatus[] = ['pending', 'approved', 'denied', 'expired'];
export const PAGE_SIZE = 20;

export const approvalsKey = ['approvals'] as const;

export function fetchApprovals(status: ApprovalStatus | undefined, offset: number) {
  return unwrap(api.GET('/api/v1/approvals', { params: { query: { ...(status ? { status } : {}), limit: PAGE_SIZE, offset } } }));
}

export function fetchApproval(id: string) {
  return unwrap(api.GET('/api/v1/approvals/{id}', { params: { path: { id } } }));
}

export type Approval = Awaited<ReturnType<typeof fetchApproval>>['data'];

/** Agents by id, for showing names instead of ids (a tenant's first 100; others show their id). */
export async function fetchAgentNames(): Promise<Map<string, string>> {
  const { data } = await unwrap(api.GET('/api/v1/agents', { params: { query: { limit: 100, offset: 0 } } }));
  return new Map(data.map((agent) => [agent.id, agent.name]));
}
