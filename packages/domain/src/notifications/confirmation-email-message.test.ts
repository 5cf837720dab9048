import { describe, expect, it } from 'vitest';
import { confirmationEmail } from './confirmation-email-message.js';

const facts = (organizationName = 'Acme Ltd') => ({ organizationName, publicUrl: 'https://governance.example.com', token: 'tok_3x-Ample' });

describe('confirmationEmail', () => {
  it('says who asks, links the confirm page and says that ignoring it does nothing', () => {
    expect(confirmationEmail(facts())).toEqual({
      subject: 'Confirm your address for approval requests',
      text: [
        'The organization "Acme Ltd" asks to send its approval requests to this address.',
        '',
        'If you expect them, confirm the address on this page (the link works once):',
        'https://governance.example.com/confirm-email?token=tok_3x-Ample',
        '',
        'If you ignore this message, nothing happens: this address receives no approval requests from it.',
        '',
      ].join('\n'),
      html: [
        '<!doctype html>',
        '<html>',
        '<body style="font-family: sans-serif; line-height: 1.4">',
        '<p>The organization &quot;Acme Ltd&quot; asks to send its approval requests to this address.</p>',
        '<p>If you expect them, confirm the address on this page (the link works once):<br>' +
          '<a href="https://governance.example.com/confirm-email?token=tok_3x-Ample">https://governance.example.com/confirm-email?token=tok_3x-Ample</a></p>',
        '<p>If you ignore this message, nothing happens: this address receives no approval requests from it.</p>',
        '</body>',
        '</html>',
        '',
      ].join('\n'),
    });
  });

  it('keeps the organization name plain text on one line, out of the subject, and adds no link of its own', () => {
    const message = confirmationEmail(
      facts('URGENT: your account is locked\r\n\r\nverify at <a href="https://evil.example/login">here</a>'),
    );
    expect(message.subject).toBe('Confirm your address for approval requests');
    const lines = message.text.split('\n');
    expect(lines).toHaveLength(confirmationEmail(facts()).text.split('\n').length);
    expect(lines[0]).toBe(
      'The organization "URGENT: your account is locked verify at <a href="https://evil.example/login">here</a>" asks to send its approval requests to this address.',
    );
    expect(message.html).toContain(
      '<p>The organization &quot;URGENT: your account is locked verify at &lt;a href=&quot;https://evil.example/login&quot;&gt;here&lt;/a&gt;&quot; asks',
    );
    expect(message.html.match(/<a /g)).toHaveLength(1);
  });
});
