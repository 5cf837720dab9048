import { PageHeader } from '../../ui/PageHeader';

export function ApprovalPage() {
  return <PageHeader title="ApprovalPage" />;
}
