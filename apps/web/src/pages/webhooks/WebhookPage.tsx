import { PageHeader } from '../../ui/PageHeader';

export function WebhookPage() {
  return <PageHeader title="WebhookPage" />;
}
