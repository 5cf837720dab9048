import { PageHeader } from '../../ui/PageHeader';

export function UsersPage() {
  return <PageHeader title="UsersPage" />;
}
