import { PageHeader } from '../../ui/PageHeader';

export function SettingsPage() {
  return <PageHeader title="SettingsPage" />;
}
