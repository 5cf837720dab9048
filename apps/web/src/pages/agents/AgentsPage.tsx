import { PageHeader } from '../../ui/PageHeader';

export function AgentsPage() {
  return <PageHeader title="AgentsPage" />;
}
