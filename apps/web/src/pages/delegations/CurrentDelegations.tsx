import { type UseQueryResult, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { useSession } from '../../session/session';
import { ActionDialog } from '../../ui/ActionDialog';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Time } from '../../ui/Time';
import { type Delegation, delegationsKey } from './queries';

type Delegations = UseQueryResult<{ data: Delegation[] }>;

/** The organization's delegations not ended nor revoked; their delegator, or an admin, may revoke each. */
export function CurrentDelegations({ delegations }: { delegations: Delegations }) {
  const { user } = useSession();
  if (delegations.isPending) return <p className="muted">Loading…</p>;
  if (delegations.isError) return <ErrorNotice error={delegations.error} />;
  const mayRevoke = (delegation: Delegation) => user.role === 'admin' || delegation.delegator.id === user.id;
  return (
    <>
      <h2>Current delegations</h2>
      <div className="table-wrap">
        <table>
          <caption className="sr-only">Current delegations</caption>
          <thead>
            <tr>
              <th scope="col">From</th>
              <th scope="col">To</th>
              <th scope="col">Starts</th>
              <th scope="col">Ends</th>
              <th scope="col">Reason</th>
              <th scope="col">Revoke</th>
            </tr>
          </thead>
          <tbody>
            {delegations.data.data.map((delegation) => (
              <tr key={delegation.id}>
                <td>
                  <Person person={delegation.delegator} />
                </td>
                <td>
                  <Person person={delegation.delegate} />
                </td>
                <td>
                  <Time value={delegation.starts_at} />
                </td>
                <td>
                  <Time value={delegation.ends_at} />
                </td>
                <td>{delegation.reason ?? <span className="muted">—</span>}</td>
                <td>{mayRevoke(delegation) && <RevokeDialog delegation={delegation} />}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {delegations.data.data.length === 0 && <p className="empty">No delegations in force or to come.</p>}
      </div>
    </>
  );
}

function Person({ person }: { person: Delegation['delegator'] }) {
  const { user } = useSession();
  return (
    <>
      {person.name}
      {person.id === user.id && <span className="muted"> (you)</span>}
      <div className="muted">{person.email}</div>
    </>
  );
}

function RevokeDialog({ delegation }: { delegation: Delegation }) {
  const queryClient = useQueryClient();
  const { delegator, delegate } = delegation;
  return (
    <ActionDialog
      trigger={`Revoke delegation to ${delegate.name}`}
      triggerTone="danger"
      title={`Revoke the delegation from ${delegator.name} to ${delegate.name}?`}
      confirm="Revoke"
      confirmTone="danger"
      onConfirm={() =>
        unwrap(api.DELETE('/api/v1/delegations/{id}', { params: { path: { id: delegation.id } } })).then(() =>
          queryClient.invalidateQueries({ queryKey: delegationsKey }),
        )
      }
    >
      <p>
        {delegate.name} can no longer vote for {delegator.name} from now on; votes already cast stay.
      </p>
    </ActionDialog>
  );
}
