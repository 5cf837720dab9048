import { randomUUID } from 'node:crypto';
import { sql as drizzleSql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { expectErrorBody } from './assertions.js';
import { client } from './client.js';
import { createAgent, createPolicy } from './fixtures.js';
import { signupTenant, type Tenant, useTestApp } from './harness.js';
import { APPROVAL_RATIONALE, requestApproval, type Approval } from './scenarios.js';

/*
 * A suspension racing an approval of one of the agent's requests. The invariant (CONTRACT:
 * approving while the agent is suspended is 409, the request stays pending): no approval
 * commits for an agent whose suspension committed first. decideApproval reads the agent
 * FOR SHARE before it moves the request, which a suspension's UPDATE of the agent must wait
 * for. The first test forces the one order in which that matters: the approval has read the
 * agent and is held (by the test's lock on the request's row) before it commits, and the
 * suspension comes then. The second runs many rounds unforced, with the approval's UPDATE
 * slowed (a trigger of this file's own database) to widen the same window, and checks the
 * invariant where it is decided: at the approval's commit, a deferred trigger notes the
 * agent's state as committed by then.
 */
const t = useTestApp({ ownDatabase: true });
const api = client(t);
const REVIEWER = { approver_name: 'Rita Reviewer' };

/** The test's own connections: one holds locks, the others watch the waiters and read. */
let sql: postgres.Sql;
beforeAll(() => {
  sql = postgres(t.runtime.config.databaseUrl!, { max: 3, onnotice: () => {} });
});
afterAll(() => sql.end());

let tenant: Tenant;
beforeAll(async () => {
  tenant = await signupTenant(t.app);
});

/** A new agent of the tenant and a pending request of it. */
async function pendingRequest(): Promise<{ agentId: string; pending: Approval }> {
  const agent = await createAgent(t.app, tenant.admin, { name: `agent-${randomUUID().slice(0, 8)}` });
  await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'approval_required', rationale: APPROVAL_RATIONALE });
  return { agentId: agent.id, pending: await requestApproval(t.app, tenant, agent.id) };
}

const approve = (approvalId: string) => api.post(tenant.admin, `/api/v1/approvals/${approvalId}/approve`, REVIEWER);
const suspend = (agentId: string) => api.post(tenant.admin, `/api/v1/agents/${agentId}/suspend`);
const statusOf = async (approvalId: string) => (await api.get(tenant.admin, `/api/v1/approvals/${approvalId}/status`)).json();

/** Backends waiting on a lock `blocker` holds. */
const waitersOn = async (blocker: number) =>
  (await sql<{ pid: number }[]>`select pid from pg_stat_activity where ${blocker}::int = any(pg_blocking_pids(pid))`).map((row) => row.pid);

/** Polls until `check` answers something other than undefined; fails after 10 s. */
async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The refusal of an approval whose agent is suspended, exactly. */
function expectRefusedAsSuspended(response: LightMyRequestResponse, pending: Approval) {
  expectErrorBody(response, 409, {
    error: 'conflict',
    message: 'agent is suspended; only requests of an active agent can be approved',
    details: { lifecycle_state: 'suspended' },
    trace_id: pending.trace_id,
  });
}

describe('a suspension racing an approval', () => {
  it('an approval that has read its agent holds off the suspension until it commits, so it never approves a suspended agent', async () => {
    const { agentId, pending } = await pendingRequest();

    // The approval is let through to its lock of the trace, and held there by the test's row
    // lock: it has locked the request, read the agent (active), and has not committed.
    const holder = await sql.reserve();
    let approved: Promise<LightMyRequestResponse> | undefined;
    let suspended: Promise<LightMyRequestResponse> | undefined;
    let answered = false;
    /** How the suspension stood while the approval was still open: answered (committed), or waiting on it. */
    let suspensionWhileApprovalOpen: 'answered' | 'waiting' | undefined;
    try {
      await holder`begin`;
      await holder`select id from traces where id = ${pending.trace_id} for update`;
      const holderPid = (await holder<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid;
      approved = approve(pending.id);
      const approverPid = await until('the approval waiting on the test', async () => (await waitersOn(holderPid))[0]);

      suspended = suspend(agentId);
      void suspended.then(() => {
        answered = true;
      });
      // Whichever comes first: the suspension answered (committed) while the approval is
      // still open, or the suspension waiting on the approval's transaction.
      suspensionWhileApprovalOpen = await until('the suspension answered or waiting', async () => {
        if (answered) return 'answered';
        return (await waitersOn(approverPid)).length > 0 ? 'waiting' : undefined;
      });
    } finally {
      await holder`rollback`;
      holder.release();
    }
    const [approval, suspension] = await Promise.all([approved!, suspended!]);
    expect(suspension.statusCode, suspension.body).toBe(200);
    expect(suspension.json().data.lifecycle_state).toBe('suspended');

    if (suspensionWhileApprovalOpen === 'answered') {
      // The suspension committed before the approval could: the approval must be refused.
      expectRefusedAsSuspended(approval, pending);
      expect(await statusOf(pending.id)).toMatchObject({ status: 'pending', decided_at: null, approver_name: null });
    } else {
      // The suspension waited: the approval committed first, and stands.
      expect(approval.statusCode, approval.body).toBe(200);
      expect(approval.json().data).toMatchObject({ id: pending.id, status: 'approved', approver_name: 'Rita Reviewer' });
    }
    // With the agent read FOR SHARE, the suspension always waits; the branch above is the invariant.
    expect(suspensionWhileApprovalOpen).toBe('waiting');
  });

  it('in 20 unforced rounds, no approval commits after its agent’s suspension did', async () => {
    const db = t.runtime.database.db;
    const install = async (ddl: string, undo: string) => {
      await db.execute(drizzleSql.raw(ddl));
      onTestFinished(async () => {
        await db.execute(drizzleSql.raw(undo));
      });
    };
    // At the approval's commit, the agent's state as committed by then.
    await install(
      `create table agent_state_at_approval (approval_id uuid primary key, lifecycle_state text not null);
       create function note_agent_state() returns trigger language plpgsql as $$
         begin
           insert into agent_state_at_approval select new.id, lifecycle_state from agents where id = new.agent_id;
           return null;
         end $$;
       create constraint trigger note_agent_state after update on approval_requests deferrable initially deferred
         for each row when (old.status = 'pending' and new.status = 'approved') execute function note_agent_state();`,
      `drop trigger note_agent_state on approval_requests; drop function note_agent_state(); drop table agent_state_at_approval;`,
    );
    // The approval's UPDATE takes 50 ms longer: a suspension arriving meanwhile finds its agent
    // read by a transaction that has not committed.
    await install(
      `create function slow_approval() returns trigger language plpgsql as $$ begin perform pg_sleep(0.05); return new; end $$;
       create trigger slow_approval before update on approval_requests
         for each row when (old.status = 'pending' and new.status = 'approved') execute function slow_approval();`,
      `drop trigger slow_approval on approval_requests; drop function slow_approval();`,
    );

    const outcomes: string[] = [];
    for (let round = 0; round < 20; round += 1) {
      const { agentId, pending } = await pendingRequest();
      // The suspension starts with the approval or up to 45 ms after it, so that rounds fall on
      // both sides of the approval's read of the agent.
      const lag = (round % 4) * 15;
      const [approval, suspension] = await Promise.all([
        approve(pending.id),
        new Promise((resolve) => setTimeout(resolve, lag)).then(() => suspend(agentId)),
      ]);
      expect(suspension.statusCode, suspension.body).toBe(200);
      const [noted] = await sql<{ lifecycle_state: string }[]>`
        select lifecycle_state from agent_state_at_approval where approval_id = ${pending.id}`;
      if (approval.statusCode === 200) {
        expect(approval.json().data).toMatchObject({ id: pending.id, status: 'approved' });
        // The invariant: the agent was still active when the approval committed.
        expect(noted, `round ${round}`).toEqual({ lifecycle_state: 'active' });
        outcomes.push('approved');
      } else {
        expectRefusedAsSuspended(approval, pending);
        expect(noted).toBeUndefined();
        expect((await statusOf(pending.id)).status).toBe('pending');
        outcomes.push('refused');
      }
    }
    // Some rounds approved, so the invariant above was checked where it can break.
    expect(outcomes).toContain('approved');
  }, 120_000);
});
