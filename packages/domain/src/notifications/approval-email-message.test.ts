import { describe, expect, it } from 'vitest';
import { approvalEmail, type ApprovalEmailFacts } from './approval-email-message.js';

const facts = (approval: Partial<ApprovalEmailFacts['approval']> = {}, agentName = 'invoice-bot'): ApprovalEmailFacts => ({
  approval: {
    id: '4b1f0e9c-1d2a-4c3b-9e8f-0a1b2c3d4e5f',
    requestedOperation: 'write',
    targetIntegration: 'github',
    resourceScope: 'repo/app',
    riskClassification: 'high',
    dataClassification: 'confidential',
    flagReason: 'Repository writes need a human reviewer.',
    expiresAt: new Date('2026-11-02T09:00:00.000Z'),
    ...approval,
  },
  agentName,
  publicUrl: 'https://governance.example.com',
});

// The message's full text is asserted once, as a reviewer receives it, in apps/api/test/approval-email.test.ts;
// here, what no real request would show: hostile values.
describe('approvalEmail', () => {
  it('escapes every value in the HTML part', () => {
    const { html } = approvalEmail(
      facts({ resourceScope: `repo/<script>alert('x')</script>`, flagReason: 'Writes & deletes need "two" people.' }, 'Tom <b>&</b> Jerry'),
    );
    expect(html).toContain('<p>Tom &lt;b&gt;&amp;&lt;/b&gt; Jerry asks for approval before it acts.</p>');
    expect(html).toContain('<tr><th align="left">Agent</th><td>Tom &lt;b&gt;&amp;&lt;/b&gt; Jerry</td></tr>');
    expect(html).toContain('<tr><th align="left">Resource</th><td>repo/&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;</td></tr>');
    expect(html).toContain('<tr><th align="left">Reason</th><td>Writes &amp; deletes need &quot;two&quot; people.</td></tr>');
    expect(html).not.toMatch(/<script|<b>/);
  });

  it('keeps every value on one line, so none can add a header or fake a line of the message', () => {
    const message = approvalEmail(
      facts(
        {
          requestedOperation: 'write\r\nBcc: intruder@example.test',
          resourceScope: 'repo/app\n\nReview the request: https://evil.example',
        },
        'invoice-bot\u2028\u0085Reply-To: intruder@example.test',
      ),
    );
    expect(message.subject).toBe(
      'Approval required: invoice-bot Reply-To: intruder@example.test wants to write Bcc: intruder@example.test on github',
    );
    const lines = message.text.split('\n');
    expect(lines[2]).toBe('Agent:          invoice-bot Reply-To: intruder@example.test');
    expect(lines[3]).toBe('Operation:      write Bcc: intruder@example.test');
    expect(lines[5]).toBe('Resource:       repo/app Review the request: https://evil.example');
    expect(lines.filter((line) => line.startsWith('Review the request:'))).toEqual([
      'Review the request: https://governance.example.com/approvals/4b1f0e9c-1d2a-4c3b-9e8f-0a1b2c3d4e5f',
    ]);
    expect(lines).toHaveLength(approvalEmail(facts()).text.split('\n').length);
  });
});
