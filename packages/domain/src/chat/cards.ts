import type { ActionsBlock, Button, ContextBlock, HeaderBlock, KnownBlock, SectionBlock } from '@slack/types';
import type { ApprovalRow } from '@agov/db';
import type { SlackMessage } from './slack-api.js';

/** What a card shows of an approval request: the request and its agent's name. */
export type CardApproval = Pick<
  ApprovalRow,
  | 'id'
  | 'requestedOperation'
  | 'targetIntegration'
  | 'resourceScope'
  | 'dataClassification'
  | 'riskClassification'
  | 'flagReason'
  | 'status'
  | 'requestedAt'
  | 'expiresAt'
  | 'escalateAt'
  | 'decidedAt'
  | 'approverName'
  | 'decisionNote'
> & { agentName: string };

/** The action ids of the card's buttons; the callback dispatches on them. */
export const CARD_ACTIONS = { approve: 'approval.approve', deny: 'approval.deny', open: 'approval.open' } as const;

/** Spec: risk colours green, blue, orange, red for low … critical, drawn as the attachment's bar. */
const RISK_COLORS: Record<ApprovalRow['riskClassification'], string> = {
  low: '#2EB67D',
  medium: '#36C5F0',
  high: '#E8912D',
  critical: '#E01E5A',
};

const OUTCOME_COLORS = { approved: '#2EB67D', denied: '#E01E5A', expired: '#9E9EA6' } as const;

/** Spec limit: the flag reason on a card is at most this many characters. */
const FLAG_REASON_LIMIT = 500;
/** Slack's limit for a header's plain text. */
const HEADER_LIMIT = 150;

/**
 * The interactive card posted in bot mode: details, Approve, Deny and Dashboard, each confirmed.
 * An escalation posts the same card with a line saying how long it went undecided (`undecidedFor`).
 */
export function approvalCard(approval: CardApproval, publicUrl: string, escalation: string | null = null): SlackMessage {
  return requestCard(
    approval,
    [approveButton(approval), denyButton(approval), dashboardButton(dashboardUrl(publicUrl, approval.id))],
    escalation,
  );
}

/** Incoming webhooks cannot call back: the same card with only the dashboard link. */
export function linkOnlyApprovalCard(approval: CardApproval, publicUrl: string, escalation: string | null = null): SlackMessage {
  return requestCard(approval, [dashboardButton(dashboardUrl(publicUrl, approval.id))], escalation);
}

/** What replaces the card once the request is decided or expired: no more Approve or Deny. */
export function decidedCard(approval: CardApproval, publicUrl: string): SlackMessage {
  const outcome = approval.status === 'pending' ? 'expired' : approval.status;
  const headline = { approved: 'Request approved', denied: 'Request denied', expired: 'Request expired' }[outcome];
  const decision =
    outcome === 'expired'
      ? 'Expired undecided'
      : `${outcome === 'approved' ? 'Approved' : 'Denied'} by ${escapeMrkdwn(approval.approverName ?? 'unknown')}`;
  const at = outcome === 'expired' ? approval.expiresAt : (approval.decidedAt ?? approval.expiresAt);
  const details: KnownBlock[] = [
    {
      type: 'section',
      fields: [
        field('Decision', decision),
        field('Decided at', slackDate(at)),
        field('Agent', escapeMrkdwn(approval.agentName)),
        field('Operation', operationOf(approval)),
      ],
    },
  ];
  if (approval.decisionNote) details.push(textSection(`*Note*\n${escapeMrkdwn(truncate(approval.decisionNote, FLAG_REASON_LIMIT))}`));
  return {
    text: `${headline}: ${escapeMrkdwn(approval.agentName)} – ${operationOf(approval)}`,
    blocks: [header(headline)],
    attachments: [
      {
        color: OUTCOME_COLORS[outcome],
        blocks: [...details, { type: 'actions', elements: [dashboardButton(dashboardUrl(publicUrl, approval.id))] }, footer(approval)],
      },
    ],
  };
}

/** The Test action's message: labelled as a test, with only the dashboard link. */
export function testCard(publicUrl: string, now: Date): SlackMessage {
  return {
    text: 'Test notification from Agent Governance',
    blocks: [
      header('Test notification'),
      textSection('This is a *test* from Agent Governance. Approval requests will appear here as cards.'),
      { type: 'actions', elements: [dashboardButton(`${publicUrl}/approvals`)] },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `Test message · ${slackDate(now)}` }] },
    ],
  };
}

/** A short message only the presser sees: why nothing happened, or what did. */
export function notice(text: string): SlackMessage {
  const escaped = escapeMrkdwn(text);
  return { text: escaped, blocks: [textSection(escaped)] };
}

/** At most `limit` characters (code points), the last one an ellipsis when cut. */
function truncate(text: string, limit: number): string {
  const characters = Array.from(text);
  return characters.length <= limit ? text : `${characters.slice(0, limit - 1).join('')}…`;
}

/**
 * Slack's three control characters; user text must not form links or mentions. Both the
 * blocks and the top-level `text` (the notification and fallback, where Slack also turns
 * `<!channel>` into a ping) go through it.
 */
function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A date every reader sees in their own time zone, with the ISO instant as the fallback. */
function slackDate(at: Date): string {
  return `<!date^${Math.floor(at.getTime() / 1000)}^{date_short_pretty} at {time}|${at.toISOString()}>`;
}

const shortId = (id: string) => id.slice(0, 8);
const dashboardUrl = (publicUrl: string, approvalId: string) => `${publicUrl}/approvals/${approvalId}`;

function requestCard(approval: CardApproval, buttons: Button[], escalation: string | null): SlackMessage {
  const risk = approval.riskClassification;
  const marked = escalation === null ? '' : 'Escalated – ';
  return {
    text: `${marked}Approval required: ${escapeMrkdwn(approval.agentName)} – ${operationOf(approval)} (${risk} risk)`,
    blocks: [
      header(`${marked}Approval required: ${approval.agentName}`),
      ...(escalation === null ? [] : [textSection(`:rotating_light: *Escalated:* this request is still ${escalation}.`)]),
    ],
    attachments: [
      {
        color: RISK_COLORS[risk],
        blocks: [
          {
            type: 'section',
            fields: [
              field('Agent', escapeMrkdwn(approval.agentName)),
              field('Operation', operationOf(approval)),
              field('Risk level', capitalized(risk)),
              field('Data classification', escapeMrkdwn(approval.dataClassification)),
            ],
          },
          textSection(`*Flag reason*\n${escapeMrkdwn(truncate(approval.flagReason, FLAG_REASON_LIMIT))}`),
          { type: 'actions', block_id: 'approval_actions', elements: buttons } satisfies ActionsBlock,
          footer(approval),
        ],
      },
    ],
  };
}

function approveButton(approval: CardApproval): Button {
  return {
    type: 'button',
    action_id: CARD_ACTIONS.approve,
    value: approval.id,
    style: 'primary',
    text: plain('Approve'),
    confirm: {
      title: plain('Approve this request?'),
      text: {
        type: 'mrkdwn',
        text: `*${escapeMrkdwn(truncate(approval.agentName, 80))}* may then ${escapeMrkdwn(truncate(plainOperationOf(approval), 160))}.`,
      },
      confirm: plain('Approve'),
      deny: plain('Cancel'),
    },
  };
}

function denyButton(approval: CardApproval): Button {
  return {
    type: 'button',
    action_id: CARD_ACTIONS.deny,
    value: approval.id,
    style: 'danger',
    text: plain('Deny'),
    confirm: {
      title: plain('Deny this request?'),
      text: {
        type: 'mrkdwn',
        text: `*${escapeMrkdwn(truncate(approval.agentName, 80))}* will not ${escapeMrkdwn(truncate(plainOperationOf(approval), 160))}.`,
      },
      confirm: plain('Deny'),
      deny: plain('Cancel'),
    },
  };
}

function dashboardButton(url: string): Button {
  return {
    type: 'button',
    action_id: CARD_ACTIONS.open,
    url,
    text: plain('Dashboard'),
    confirm: {
      title: plain('Open the dashboard?'),
      text: plain('The request opens in the Agent Governance dashboard in your browser.'),
      confirm: plain('Open'),
      deny: plain('Cancel'),
    },
  };
}

function footer(approval: CardApproval): ContextBlock {
  return {
    type: 'context',
    elements: [{ type: 'mrkdwn', text: `Approval ${shortId(approval.id)} · requested ${slackDate(approval.requestedAt)}` }],
  };
}

const header = (text: string): HeaderBlock => ({ type: 'header', text: plain(truncate(text, HEADER_LIMIT)) });
const textSection = (text: string): SectionBlock => ({ type: 'section', text: { type: 'mrkdwn', text } });
const field = (title: string, value: string) => ({ type: 'mrkdwn' as const, text: `*${title}*\n${value}` });
const plain = (text: string) => ({ type: 'plain_text' as const, text });
const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
const plainOperationOf = (approval: CardApproval) =>
  `${approval.requestedOperation} on ${approval.targetIntegration} (${approval.resourceScope})`;
const operationOf = (approval: CardApproval) => escapeMrkdwn(plainOperationOf(approval));
