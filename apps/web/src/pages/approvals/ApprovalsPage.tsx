import { PageHeader } from '../../ui/PageHeader';

export function ApprovalsPage() {
  return <PageHeader title="ApprovalsPage" />;
}
