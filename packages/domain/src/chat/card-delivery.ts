import { and, eq } from 'drizzle-orm';
import { agents, approvalRequests, chatMessages } from '@agov/db';
import type { ChatDeps } from './deps.js';
import type { DueEffect } from '../outbox/effects.js';
import { completeEffect, isAttemptDue, recordEffects, recordFailedAttempt } from '../outbox/record.js';
import { cardUpdatesFor } from '../approvals/card-updates.js';
import { approvalCard, decidedCard, linkOnlyApprovalCard, type CardApproval } from './cards.js';
import { postToIncomingWebhook } from './incoming-webhook.js';
import { loadChatIntegration, type ChatIntegration } from './settings.js';
import type { PostedMessage } from './slack-api.js';
import { undecidedFor } from '../support/durations.js';

/**
 * Posts the card of a new approval request (the `chat_card` effect): interactive in bot mode,
 * keeping its channel and ts so a decision can update it; link-only through an incoming
 * webhook. Only while the request is pending. A failure is retried on the webhook schedule;
 * evaluate never waits for any of it.
 */
export async function postApprovalCard(deps: ChatDeps, effect: DueEffect<'chat_card'>): Promise<void> {
  const job = await cardJob(deps, effect);
  if (!job) return;
  const { approval, integration } = job;
  const now = deps.clock.now();
  if (!integration.enabled || approval.status !== 'pending' || approval.expiresAt <= now)
    return completeEffect(deps.database.db, effect.id);

  if (integration.mode === 'incoming_webhook') {
    const sent = await postToIncomingWebhook(deps, integration.settings.webhook_url, linkOnlyApprovalCard(approval, deps.publicUrl));
    return sent.ok ? completeEffect(deps.database.db, effect.id) : failed(deps, effect, 'approval_card', sent.error);
  }
  const { bot_token: token, channel_id: channel } = integration.settings;
  const posted = await deps.chat.slack.postMessage(token, channel, approvalCard(approval, deps.publicUrl));
  if (!posted.ok) return failed(deps, effect, 'approval_card', posted.error);
  await recordPostedCard(deps, effect, posted);
}

/**
 * Posts the card of a request just escalated (the `escalation_chat` effect), marked as such: in
 * bot mode to the escalation channel, if one is set; through an incoming webhook to that
 * webhook, its only channel. Only while the request is pending. The card is not kept for
 * updating (the request's one kept card is the first); a press after the decision is told so.
 */
export async function postEscalationCard(deps: ChatDeps, effect: DueEffect<'escalation_chat'>): Promise<void> {
  const job = await cardJob(deps, effect);
  if (!job) return;
  const { approval, integration } = job;
  const db = deps.database.db;
  if (!integration.enabled || approval.status !== 'pending' || approval.expiresAt <= deps.clock.now()) return completeEffect(db, effect.id);

  const escalation = undecidedFor(approval);
  if (integration.mode === 'incoming_webhook') {
    const message = linkOnlyApprovalCard(approval, deps.publicUrl, escalation);
    const sent = await postToIncomingWebhook(deps, integration.settings.webhook_url, message);
    return sent.ok ? completeEffect(db, effect.id) : failed(deps, effect, 'escalation_card', sent.error);
  }
  const { bot_token: token, escalation_channel: channel } = integration.settings;
  if (channel === undefined) return completeEffect(db, effect.id);
  const posted = await deps.chat.slack.postMessage(token, channel, approvalCard(approval, deps.publicUrl, escalation));
  if (!posted.ok) return failed(deps, effect, 'escalation_card', posted.error);
  await completeEffect(db, effect.id);
}

/** Replaces a posted card with the decision (the `chat_card_update` effect), retried like a post. */
export async function updateApprovalCard(deps: ChatDeps, effect: DueEffect<'chat_card_update'>): Promise<void> {
  const job = await cardJob(deps, effect);
  if (!job) return;
  const { approval, integration, posted } = job;
  if (!posted || integration.mode !== 'bot' || !integration.enabled || approval.status === 'pending') {
    return completeEffect(deps.database.db, effect.id);
  }
  const updated = await deps.chat.slack.updateMessage(integration.settings.bot_token, posted, decidedCard(approval, deps.publicUrl));
  if (!updated.ok) return failed(deps, effect, 'card_update', updated.error);
  await completeEffect(deps.database.db, effect.id);
}

/** A card posted, one updated in place, or an escalation's card. */
type CardKind = 'chat_card' | 'chat_card_update' | 'escalation_chat';

interface CardJob {
  approval: CardApproval;
  integration: ChatIntegration;
  posted: PostedMessage | null;
}

/** What a card job needs; null (and the row retired) when there is nothing left to do. */
async function cardJob(deps: ChatDeps, effect: DueEffect<CardKind>): Promise<CardJob | null> {
  const { approval_id: approvalId } = effect.payload;
  const db = deps.database.db;
  // Finished, or this attempt recorded, by an earlier run of this same job.
  if (!(await isAttemptDue(db, effect))) return null;
  const [found] = await db
    .select({ approval: approvalRequests, agentName: agents.name, posted: { channel: chatMessages.channel, ts: chatMessages.ts } })
    .from(approvalRequests)
    .innerJoin(agents, and(eq(agents.id, approvalRequests.agentId), eq(agents.tenantId, approvalRequests.tenantId)))
    .leftJoin(chatMessages, eq(chatMessages.approvalId, approvalRequests.id))
    .where(and(eq(approvalRequests.id, approvalId), eq(approvalRequests.tenantId, effect.tenantId)));
  const integration = await loadChatIntegration(deps, effect.tenantId);
  if (!found || !integration) {
    await completeEffect(db, effect.id);
    return null;
  }
  return { approval: { ...found.approval, agentName: found.agentName }, integration, posted: found.posted };
}

/**
 * Keeps the card's place and retires the effect. A decision committed while the card was
 * being posted found no card to update: the request is read `FOR SHARE` after the card is
 * stored, which waits for such a decision, and if it is no longer pending the update is
 * recorded here instead.
 */
async function recordPostedCard(deps: ChatDeps, effect: DueEffect<'chat_card'>, posted: PostedMessage): Promise<void> {
  const { approval_id: approvalId } = effect.payload;
  await deps.database.db.transaction(async (tx) => {
    await tx
      .insert(chatMessages)
      .values({ approvalId, tenantId: effect.tenantId, channel: posted.channel, ts: posted.ts, createdAt: deps.clock.now() })
      .onConflictDoNothing();
    const [current] = await tx
      .select({ status: approvalRequests.status })
      .from(approvalRequests)
      .where(eq(approvalRequests.id, approvalId))
      .for('share');
    if (current && current.status !== 'pending') {
      await recordEffects(tx, effect.tenantId, await cardUpdatesFor(tx, approvalId), deps.clock.now());
    }
    await completeEffect(tx, effect.id);
  });
}

/** A failed send: due again on the webhook retry schedule, or given up after the last attempt. */
async function failed(deps: ChatDeps, effect: DueEffect<CardKind>, what: string, error: string): Promise<void> {
  const next = await recordFailedAttempt(deps.database.db, effect, {
    error,
    retryDelaysMs: deps.webhooks.retryDelaysMs,
    now: deps.clock.now(),
  });
  const { approval_id: approvalId } = effect.payload;
  deps.chat.reportFailure({ tenantId: effect.tenantId, approvalId, what, error, retryAt: next.nextRetryAt });
}
