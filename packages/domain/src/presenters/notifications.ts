import type { NotificationSettingsView } from '../notifications/settings.js';

export const presentNotificationSettings = (settings: NotificationSettingsView) => ({
  email_enabled: settings.emailEnabled,
  reviewer_emails: settings.reviewerEmails,
  unconfirmed_emails: settings.unconfirmedEmails,
});
