import { and, eq, inArray, sql } from 'drizzle-orm';
import { agents, approvalRequests, users, type ApprovalRow, type UserRow } from '@agov/db';
import { identityOf, type Principal } from '../access/access.js';
import { approvalsAmong, type Verdict } from '../approvals/decision-events.js';
import { decideApproval } from '../approvals/decisions.js';
import type { ChatDeps } from './deps.js';
import { AppError } from '../support/errors.js';
import { notice } from './cards.js';
import type { BotSettings } from './settings.js';

/** A bot-mode integration whose signing secret signed the callback. */
export interface SigningIntegration {
  tenantId: string;
  settings: BotSettings;
}

/** A verified press of Approve or Deny on a card. */
export interface CardPress {
  approvalId: string;
  verdict: Verdict;
  user: { id: string; username: string | null };
  /** Where the card is, for the presser's ephemeral answer. */
  channel: string | null;
}

/** Slack allows 3 s for the answer; the presser's e-mail must be known well before that. */
const PRESSER_LOOKUP_MS = 2_000;

export const SELF_APPROVAL_REFUSAL = "You cannot approve your own agent's requests.";

/**
 * Decides as the tenant user behind the Slack account, under the API's rules: the one
 * `decideApproval` so pending only, not expired, agent active to approve, exactly one
 * decision. The presser must be a reviewer or admin of the tenant, matched by the e-mail
 * Slack holds for them, and may not approve requests of an agent they created (separation of
 * duties). Whatever stops a decision is explained to the presser alone, in Slack.
 */
export async function decideFromCard(deps: ChatDeps, owners: SigningIntegration[], press: CardPress): Promise<void> {
  const [request] = await deps.database.db
    .select({
      tenantId: approvalRequests.tenantId,
      agentCreator: agents.createdByIdentity,
      requester: approvalRequests.requestedByIdentity,
    })
    .from(approvalRequests)
    .innerJoin(agents, and(eq(agents.id, approvalRequests.agentId), eq(agents.tenantId, approvalRequests.tenantId)))
    .where(
      and(
        eq(approvalRequests.id, press.approvalId),
        inArray(
          approvalRequests.tenantId,
          owners.map((owner) => owner.tenantId),
        ),
      ),
    );
  const owner = owners.find((candidate) => candidate.tenantId === request?.tenantId) ?? owners[0]!;
  const tell = (text: string) => tellPresser(deps, owner, press, text);
  if (!request) return tell('This approval request was not found.');

  const email = await emailOf(deps, owner, press);
  if (email === undefined) return tell('Your Slack account could not be checked just now; nothing was decided. Please try again.');
  if (email === null) return tell('Your Slack e-mail address is not visible to the app, so you cannot decide requests here.');
  const reviewer = await reviewerWithEmail(deps, request.tenantId, email);
  if (!reviewer) return tell('Only reviewers and admins of this organization can decide requests; nothing was decided.');
  const principal: Principal = {
    kind: 'session',
    tenantId: request.tenantId,
    role: reviewer.role,
    user: { id: reviewer.id, name: reviewer.name, email: reviewer.email },
    sessionId: null,
  };
  // Separation of duties (spec, step 6), on identities the service recorded itself: the
  // client-written `created_by` could name anyone, or be changed by PATCH.
  const presser = identityOf(principal);
  if (press.verdict === 'approve' && (presser === request.agentCreator || presser === request.requester)) {
    return tell(SELF_APPROVAL_REFUSAL);
  }
  let voted: ApprovalRow;
  try {
    voted = await decideApproval(deps, principal, press.approvalId, press.verdict, { approver_name: reviewer.name });
  } catch (error) {
    if (!(error instanceof AppError) || (error.code !== 'conflict' && error.code !== 'not_found')) throw error;
    return tell(await refusalText(deps, request.tenantId, press.approvalId, error));
  }
  // The card changes once the request is decided; until then only the presser learns their vote counted.
  if (voted.status === 'pending') tell(quorumText(voted));
}

function quorumText(approval: ApprovalRow): string {
  const approvals = approvalsAmong(approval.votes);
  const missing = approval.approvalsRequired - approvals;
  return `Your approval is recorded (${approvals} of ${approval.approvalsRequired}); the request waits for ${missing} more ${missing === 1 ? 'person' : 'people'}.`;
}

/** A reviewer or admin of the tenant with this e-mail; viewers may not decide. */
async function reviewerWithEmail(deps: ChatDeps, tenantId: string, email: string): Promise<UserRow | null> {
  const [user] = await deps.database.db
    .select()
    .from(users)
    .where(and(eq(users.tenantId, tenantId), sql`lower(${users.email}) = ${email.toLowerCase()}`));
  return user && user.role !== 'viewer' ? user : null;
}

/** The presser's e-mail from Slack; null when the bot may not read it, undefined when Slack did not answer in time. */
async function emailOf(deps: ChatDeps, owner: SigningIntegration, press: CardPress): Promise<string | null | undefined> {
  const lookup = deps.chat.slack.userEmail(owner.settings.bot_token, press.user.id).then((found) => {
    if (found.ok) return found.email;
    report(deps, owner, press, 'presser_lookup', found.error);
    return undefined;
  });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, PRESSER_LOOKUP_MS, undefined);
  });
  try {
    return await Promise.race([lookup, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Why the decision was refused, in the presser's words. */
async function refusalText(deps: ChatDeps, tenantId: string, approvalId: string, error: AppError): Promise<string> {
  if (error.code === 'not_found') return 'This approval request was not found.';
  const status = error.details?.status;
  if (status === 'expired') return 'This approval request has expired; nothing was decided.';
  if (status === 'approved' || status === 'denied') {
    const [current] = await deps.database.db
      .select({ approverName: approvalRequests.approverName })
      .from(approvalRequests)
      .where(and(eq(approvalRequests.id, approvalId), eq(approvalRequests.tenantId, tenantId)));
    return `This approval request was already ${status} by ${current?.approverName ?? 'someone else'}; nothing changed.`;
  }
  return `Not decided: ${error.message}.`;
}

/** An ephemeral answer, sent without holding up Slack's 3-second budget; a failure is only reported. */
function tellPresser(deps: ChatDeps, owner: SigningIntegration, press: CardPress, text: string): void {
  if (press.channel === null) return;
  deps.chat.slack.postEphemeral(owner.settings.bot_token, press.channel, press.user.id, notice(text)).then((sent) => {
    if (!sent.ok) report(deps, owner, press, 'ephemeral', sent.error);
  });
}

function report(deps: ChatDeps, owner: SigningIntegration, press: CardPress, what: string, error: string): void {
  deps.chat.reportFailure({ tenantId: owner.tenantId, approvalId: press.approvalId, what, error, retryAt: null });
}
