import { PageHeader } from '../../ui/PageHeader';

export function ApiKeysPage() {
  return <PageHeader title="ApiKeysPage" />;
}
