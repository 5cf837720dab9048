import type { ApprovalRow } from '@agov/db';
import type { MailMessage } from './mailer.js';
import { escapeHtml, oneLine } from './plain-text.js';

/** What a reviewer needs to judge a request, as the approval e-mail shows it. */
export interface ApprovalEmailFacts {
  approval: Pick<
    ApprovalRow,
    | 'id'
    | 'requestedOperation'
    | 'targetIntegration'
    | 'resourceScope'
    | 'riskClassification'
    | 'dataClassification'
    | 'flagReason'
    | 'expiresAt'
  >;
  agentName: string;
  /** The base URL people open, without a trailing slash. */
  publicUrl: string;
  /** For the escalation mail, how long the request went undecided (`undecidedFor`). */
  escalation?: string | null;
}

/** Where a reviewer decides the request: the dashboard's page of the approval. */
const approvalLink = (publicUrl: string, approvalId: string) => `${publicUrl}/approvals/${approvalId}`;

/**
 * The e-mail to reviewers about one pending request, as plain text and as HTML. Every value
 * is put on one line (the resource scope comes from the agent runtime, so a line break in it
 * could otherwise fake a line of the message, or a header), and escaped in the HTML.
 */
export function approvalEmail({ approval, agentName, publicUrl, escalation = null }: ApprovalEmailFacts): Omit<MailMessage, 'to'> {
  const agent = oneLine(agentName);
  const operation = oneLine(approval.requestedOperation);
  const integration = oneLine(approval.targetIntegration);
  const link = approvalLink(publicUrl, approval.id);
  const expires = approval.expiresAt.toISOString();
  const facts: [label: string, value: string][] = [
    ['Agent', agent],
    ['Operation', operation],
    ['Integration', integration],
    ['Resource', oneLine(approval.resourceScope)],
    ['Risk', approval.riskClassification],
    ['Classification', oneLine(approval.dataClassification)],
    ['Reason', oneLine(approval.flagReason)],
  ];
  const intro =
    escalation === null
      ? `${agent} asks for approval before it acts.`
      : `Escalated: this request is still ${escalation}. ${agent} asks for approval before it acts.`;
  const deadline = `It expires at ${expires} unless someone decides it first.`;

  const text = [
    intro,
    '',
    ...facts.map(([label, value]) => `${`${label}:`.padEnd(16)}${value}`),
    '',
    `Review the request: ${link}`,
    deadline,
    '',
  ].join('\n');

  const html = [
    '<!doctype html>',
    '<html>',
    '<body style="font-family: sans-serif; line-height: 1.4">',
    `<p>${escapeHtml(intro)}</p>`,
    '<table cellpadding="4" cellspacing="0">',
    ...facts.map(([label, value]) => `<tr><th align="left">${label}</th><td>${escapeHtml(value)}</td></tr>`),
    '</table>',
    `<p><a href="${escapeHtml(link)}">Review the request</a></p>`,
    `<p>${escapeHtml(deadline)}</p>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');

  const subject = escalation === null ? 'Approval required' : 'Escalated: approval still required';
  return { subject: `${subject}: ${agent} wants to ${operation} on ${integration}`, text, html };
}
