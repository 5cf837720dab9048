import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useCan, useSession } from '../../session/session';
import { ActionDialog } from '../../ui/ActionDialog';
import { SelectField } from '../../ui/choices';
import { TextField } from '../../ui/fields';
import { delegatorsFor } from '../delegations/in-force';
import { type Delegation, delegationsKey, fetchCurrentDelegations } from '../delegations/queries';
import { type Decidable, useVote, type Verdict, verdictEffect } from './DecideButtons';

const VERDICTS = [
  { id: 'approve', label: 'Approve' },
  { id: 'deny', label: 'Deny' },
];

/** "Vote for <name>" for each reviewer whose votes the signed-in user holds by a delegation in force. */
export function DelegatedVotes({ approval }: { approval: Decidable }) {
  const canDecide = useCan('decide');
  const { user } = useSession();
  const isPending = approval.status === 'pending';
  const delegations = useQuery({ queryKey: delegationsKey, queryFn: fetchCurrentDelegations, enabled: canDecide && isPending });
  if (!canDecide || !isPending || !delegations.data) return null;
  return delegatorsFor(delegations.data.data, user.id, new Date()).map((delegator) => (
    <VoteForDialog key={delegator.id} approval={approval} delegator={delegator} />
  ));
}

function VoteForDialog({ approval, delegator }: { approval: Decidable; delegator: Delegation['delegator'] }) {
  const [verdict, setVerdict] = useState<Verdict>('approve');
  const [note, setNote] = useState('');
  const vote = useVote(approval.id);
  return (
    <ActionDialog
      trigger={`Vote for ${delegator.name}`}
      title={`Vote for ${delegator.name} on ${approval.requested_operation}`}
      confirm="Cast vote"
      onConfirm={() => vote.mutateAsync({ verdict, note, onBehalfOf: delegator.email })}
    >
      <p>
        {delegator.name} delegated their votes to you: this one counts as theirs, and the trail names you both.{' '}
        {verdictEffect(approval, verdict)}
      </p>
      <SelectField label="Vote" options={VERDICTS} value={verdict} onChange={(value) => setVerdict(value as Verdict)} />
      <TextField label="Note (optional)" multiline value={note} onChange={setNote} />
    </ActionDialog>
  );
}
