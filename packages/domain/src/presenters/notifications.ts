/** What an admin sees (notifications/settings.ts reads it): the settings and the addresses still unconfirmed. */
export const presentNotificationSettings = (settings: {
  emailEnabled: boolean;
  reviewerEmails: string[];
  escalationEmails: string[];
  unconfirmedEmails: string[];
}) => ({
  email_enabled: settings.emailEnabled,
  reviewer_emails: settings.reviewerEmails,
  escalation_emails: settings.escalationEmails,
  unconfirmed_emails: settings.unconfirmedEmails,
});
