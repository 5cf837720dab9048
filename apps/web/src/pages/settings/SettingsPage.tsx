import { PageHeader } from '../../ui/PageHeader';
import { BillingSettings } from './BillingSettings';
import { ChatSettings } from './ChatSettings';
import { EmailSettings } from './EmailSettings';
import { GrantSettings } from './GrantSettings';

export function SettingsPage() {
  return (
    <section>
      <PageHeader title="Settings">Where approval requests reach reviewers, the grants tools verify, and the plan.</PageHeader>
      <EmailSettings />
      <ChatSettings />
      <GrantSettings />
      <BillingSettings />
    </section>
  );
}
