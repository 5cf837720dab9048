import { PageHeader } from '../../ui/PageHeader';

export function TracesPage() {
  return <PageHeader title="TracesPage" />;
}
