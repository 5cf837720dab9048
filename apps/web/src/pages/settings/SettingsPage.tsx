import { PageHeader } from '../../ui/PageHeader';
import { BillingSettings } from './BillingSettings';
import { ChatSettings } from './ChatSettings';
import { EmailSettings } from './EmailSettings';

export function SettingsPage() {
  return (
    <section>
      <PageHeader title="Settings">Where approval requests reach reviewers, and the plan.</PageHeader>
      <EmailSettings />
      <ChatSettings />
      <BillingSettings />
    </section>
  );
}
