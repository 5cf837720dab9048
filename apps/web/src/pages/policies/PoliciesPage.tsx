import { PageHeader } from '../../ui/PageHeader';

export function PoliciesPage() {
  return <PageHeader title="PoliciesPage" />;
}
