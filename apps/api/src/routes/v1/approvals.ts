import {
  countApprovals,
  decideApproval,
  getApproval,
  getApprovalDetail,
  listApprovals,
  presentApproval,
  presentApprovalDetail,
  presentApprovalStatus,
  type Verdict,
  waitForApproval,
  withGrant,
} from '@agov/domain';
import { ACCESS } from '../../access.js';
import {
  Approval,
  ApprovalCount,
  ApprovalCountQuery,
  ApprovalDetail,
  ApprovalListQuery,
  ApprovalStatusQuery,
  ApprovalStatusResponse,
  DecisionBody,
} from '../../schemas/approvals.js';
import { Data, IdParams, PagedList } from '../../schemas/common.js';
import type { Routes } from '../types.js';

const VERDICTS: readonly Verdict[] = ['approve', 'deny'];

export const approvalRoutes: Routes = async (app, { deps }) => {
  const tags = ['approvals'];
  // Shutting down waits for requests in flight: long polls answer at once with the status they have.
  app.addHook('preClose', async () => deps.approvalWaiters.close());
  const read = { access: ACCESS.approvalsRead };

  app.get(
    '/approvals',
    {
      config: read,
      schema: { operationId: 'listApprovals', tags, querystring: ApprovalListQuery, response: { 200: PagedList(Approval) } },
    },
    async (request) => {
      const { limit, offset, ...filters } = request.query;
      const page = await listApprovals(deps, request.principal, filters, { limit, offset });
      return { data: page.items.map(presentApproval), pagination: { total: page.total, limit, offset } };
    },
  );

  app.get(
    '/approvals/count',
    { config: read, schema: { operationId: 'countApprovals', tags, querystring: ApprovalCountQuery, response: { 200: ApprovalCount } } },
    async (request) => ({
      count: await countApprovals(deps, request.principal, request.query.status),
    }),
  );

  app.get(
    '/approvals/:id',
    { config: read, schema: { operationId: 'getApproval', tags, params: IdParams, response: { 200: Data(ApprovalDetail) } } },
    async (request) => ({
      data: presentApprovalDetail(await getApprovalDetail(deps, request.principal, request.params.id)),
    }),
  );

  app.get(
    '/approvals/:id/status',
    {
      config: read,
      schema: {
        operationId: 'getApprovalStatus',
        tags,
        params: IdParams,
        querystring: ApprovalStatusQuery,
        response: { 200: ApprovalStatusResponse },
      },
    },
    async (request, reply) => {
      const { wait } = request.query;
      if (wait === undefined)
        return presentApprovalStatus(await withGrant(deps, await getApproval(deps, request.principal, request.params.id)));
      // A client that hangs up ends the wait.
      const gone = new AbortController();
      reply.raw.once('close', () => gone.abort());
      const approval = await waitForApproval(deps, request.principal, request.params.id, wait * 1000, gone.signal);
      return presentApprovalStatus(await withGrant(deps, approval));
    },
  );

  for (const verdict of VERDICTS) {
    app.post(
      `/approvals/:id/${verdict}`,
      {
        config: { access: ACCESS.approvalsDecide, idempotent: true },
        schema: { operationId: `${verdict}Approval`, tags, params: IdParams, body: DecisionBody, response: { 200: Data(Approval) } },
      },
      async (request) => ({
        data: presentApproval(await decideApproval(deps, request.principal, request.params.id, verdict, request.body)),
      }),
    );
  }
};
