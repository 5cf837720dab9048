import { PageHeader } from '../../ui/PageHeader';

export function OverviewPage() {
  return <PageHeader title="OverviewPage" />;
}
