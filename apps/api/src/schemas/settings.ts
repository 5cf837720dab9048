import { Type } from '@sinclair/typebox';
import { Body } from './common.js';

/** Enough for a team of reviewers; a distribution list covers more. */
export const MAX_REVIEWER_EMAILS = 50;

// The `email` format admits no spaces, quotes, commas or line breaks: nothing that could
// add a recipient or a header to the message.
const ReviewerEmail = Type.String({ format: 'email', maxLength: 254 });

export const NotificationSettingsBody = Body({
  email_enabled: Type.Boolean(),
  reviewer_emails: Type.Array(ReviewerEmail, { maxItems: MAX_REVIEWER_EMAILS }),
  escalation_emails: Type.Optional(
    Type.Array(ReviewerEmail, {
      maxItems: MAX_REVIEWER_EMAILS,
      description: 'Told of a request still pending at its escalate_at (rules, escalate_after_seconds). Left out: nobody.',
    }),
  ),
});

export const NotificationSettings = Type.Object(
  {
    email_enabled: Type.Boolean(),
    reviewer_emails: Type.Array(Type.String()),
    escalation_emails: Type.Array(Type.String()),
    unconfirmed_emails: Type.Array(Type.String(), {
      description:
        'The addresses of either list, as written, whose owners have not confirmed them yet: they get no approval or escalation mail.',
    }),
  },
  { title: 'NotificationSettings' },
);

/** The token of a confirmation link, as the dashboard's confirm page sends it. */
export const EmailConfirmationBody = Body({ token: Type.String({ minLength: 1, maxLength: 128 }) });
