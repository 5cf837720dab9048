import type { MailMessage } from './mailer.js';
import { escapeHtml, oneLine } from './plain-text.js';

export interface ConfirmationEmailFacts {
  /** The name the organization gave itself at signup: the only text of the message a tenant wrote. */
  organizationName: string;
  /** The base URL people open, without a trailing slash. */
  publicUrl: string;
  token: string;
}

/** The dashboard's page that confirms with a button press: opening the link alone confirms nothing. */
export const confirmationLink = (publicUrl: string, token: string) => `${publicUrl}/confirm-email?token=${token}`;

/**
 * The message that asks an address to confirm it wants a tenant's approval requests. Whoever
 * can sign up chooses the organization's name, and the address may belong to anyone, so the
 * name is the only thing of the tenant's in it: quoted, on one line, escaped in the HTML, and
 * never in the subject.
 */
export function confirmationEmail({ organizationName, publicUrl, token }: ConfirmationEmailFacts): Omit<MailMessage, 'to'> {
  const link = confirmationLink(publicUrl, token);
  const asked = `The organization "${oneLine(organizationName)}" asks to send its approval requests to this address.`;
  const confirm = 'If you expect them, confirm the address on this page (the link works once):';
  const ignore = 'If you ignore this message, nothing happens: this address receives no approval requests from it.';

  const text = [asked, '', confirm, link, '', ignore, ''].join('\n');
  const html = [
    '<!doctype html>',
    '<html>',
    '<body style="font-family: sans-serif; line-height: 1.4">',
    `<p>${escapeHtml(asked)}</p>`,
    `<p>${escapeHtml(confirm)}<br><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>`,
    `<p>${escapeHtml(ignore)}</p>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');

  return { subject: 'Confirm your address for approval requests', text, html };
}
