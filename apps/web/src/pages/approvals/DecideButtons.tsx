import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import { useCan, useSession } from '../../session/session';
import { ActionDialog } from '../../ui/ActionDialog';
import { TextField } from '../../ui/fields';
import { PENDING_COUNT } from '../../ui/Layout';
import { approvalsKey, type Approval } from './queries';
import { quorumOf } from './votes';

export type Verdict = 'approve' | 'deny';
/** What deciding needs of a request, in a list row or on its page. */
export type Decidable = Pick<Approval, 'id' | 'status' | 'requested_operation' | 'approvals_required' | 'votes'>;

interface Ballot {
  verdict: Verdict;
  note: string;
  /** The e-mail of the reviewer whose delegated vote this is. */
  onBehalfOf?: string;
}

/** Casts a vote on a request as the signed-in user, or for a reviewer who delegated their votes to them. */
export function useVote(approvalId: string) {
  const { user } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ verdict, note, onBehalfOf }: Ballot) => {
      const body = {
        approver_name: user.name,
        ...(note.trim() ? { decision_note: note.trim() } : {}),
        ...(onBehalfOf ? { on_behalf_of: onBehalfOf } : {}),
      };
      const path = { params: { path: { id: approvalId } }, body };
      return unwrap(
        verdict === 'approve' ? api.POST('/api/v1/approvals/{id}/approve', path) : api.POST('/api/v1/approvals/{id}/deny', path),
      );
    },
    // Counted, decided, or refused because it was decided elsewhere meanwhile: either way the lists are stale.
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: approvalsKey });
      void queryClient.invalidateQueries({ queryKey: PENDING_COUNT });
      void queryClient.invalidateQueries({ queryKey: ['traces'] });
    },
  });
}

/** Approve and Deny for a pending request, each confirmed in a dialog with an optional note; reviewers and admins only. */
export function DecideButtons({ approval }: { approval: Decidable }) {
  const canDecide = useCan('decide');
  if (!canDecide || approval.status !== 'pending') return null;
  return (
    <div className="actions">
      <DecideDialog approval={approval} verdict="approve" />
      <DecideDialog approval={approval} verdict="deny" />
    </div>
  );
}

function DecideDialog({ approval, verdict }: { approval: Decidable; verdict: Verdict }) {
  const { user } = useSession();
  const [note, setNote] = useState('');
  const vote = useVote(approval.id);
  const label = verdict === 'approve' ? 'Approve' : 'Deny';
  return (
    <ActionDialog
      trigger={label}
      triggerTone={verdict === 'approve' ? 'primary' : 'danger'}
      title={`${label} ${approval.requested_operation}?`}
      confirm={label}
      confirmTone={verdict === 'approve' ? 'primary' : 'danger'}
      onConfirm={() => vote.mutateAsync({ verdict, note })}
    >
      <p>
        {verdictEffect(approval, verdict)} You decide as {user.name}.
      </p>
      <TextField label="Note (optional)" multiline value={note} onChange={setNote} />
    </ActionDialog>
  );
}

/** What a vote does to the request: an approve below the quorum only counts towards it; any deny ends it. */
export function verdictEffect(approval: Pick<Approval, 'approvals_required' | 'votes'>, verdict: Verdict): string {
  if (verdict === 'deny') return 'The agent will be told no.';
  const quorum = quorumOf(approval);
  if (quorum && quorum.approvals + 1 < quorum.required) {
    return `This approval counts towards the ${quorum.required} needed; the request stays pending until they are given.`;
  }
  return 'The agent may go ahead.';
}
