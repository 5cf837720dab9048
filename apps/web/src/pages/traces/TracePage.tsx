import { PageHeader } from '../../ui/PageHeader';

export function TracePage() {
  return <PageHeader title="TracePage" />;
}
