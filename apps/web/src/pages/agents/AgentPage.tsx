import { PageHeader } from '../../ui/PageHeader';

export function AgentPage() {
  return <PageHeader title="AgentPage" />;
}
