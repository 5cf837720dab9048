import type { NotificationSettings } from '../notifications/settings.js';

export const presentNotificationSettings = (settings: NotificationSettings) => ({
  email_enabled: settings.emailEnabled,
  reviewer_emails: settings.reviewerEmails,
});
