import { useQuery } from '@tanstack/react-query';
import { PageHeader } from '../../ui/PageHeader';
import { CurrentDelegations } from './CurrentDelegations';
import { delegationsKey, fetchCurrentDelegations } from './queries';
import { NewDelegationForm } from './NewDelegationForm';

/** Where a reviewer hands their approval votes to a colleague while away, and takes them back. */
export function DelegationsPage() {
  const delegations = useQuery({ queryKey: delegationsKey, queryFn: fetchCurrentDelegations });
  return (
    <section>
      <PageHeader title="Delegations">
        While you are away, another reviewer or admin may vote on approval requests for you; each such vote names you both.
      </PageHeader>
      <NewDelegationForm />
      <CurrentDelegations delegations={delegations} />
    </section>
  );
}
