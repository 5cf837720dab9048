import { PageHeader } from '../../ui/PageHeader';

export function WebhooksPage() {
  return <PageHeader title="WebhooksPage" />;
}
