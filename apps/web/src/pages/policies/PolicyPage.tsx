import { PageHeader } from '../../ui/PageHeader';

export function PolicyPage() {
  return <PageHeader title="PolicyPage" />;
}
