import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import { useCan, useSession } from '../../session/session';
import { ActionDialog } from '../../ui/ActionDialog';
import { TextField } from '../../ui/fields';
import { PENDING_COUNT } from '../../ui/Layout';
import { approvalsKey, type Approval } from './queries';

type Verdict = 'approve' | 'deny';

/** Approve and Deny for a pending request, each confirmed in a dialog with an optional note; reviewers and admins only. */
export function DecideButtons({ approval }: { approval: Pick<Approval, 'id' | 'status' | 'requested_operation'> }) {
  const canDecide = useCan('decide');
  if (!canDecide || approval.status !== 'pending') return null;
  return (
    <div className="actions">
      <DecideDialog approval={approval} verdict="approve" />
      <DecideDialog approval={approval} verdict="deny" />
    </div>
  );
}

function DecideDialog({ approval, verdict }: { approval: Pick<Approval, 'id' | 'requested_operation'>; verdict: Verdict }) {
  const { user } = useSession();
  const queryClient = useQueryClient();
  const [note, setNote] = useState('');
  const decide = useMutation({
    mutationFn: () => {
      const body = { approver_name: user.name, ...(note.trim() ? { decision_note: note.trim() } : {}) };
      const path = { params: { path: { id: approval.id } }, body };
      return unwrap(
        verdict === 'approve' ? api.POST('/api/v1/approvals/{id}/approve', path) : api.POST('/api/v1/approvals/{id}/deny', path),
      );
    },
    // Decided here or elsewhere meanwhile (a 409): either way the lists are stale.
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: approvalsKey });
      void queryClient.invalidateQueries({ queryKey: PENDING_COUNT });
      void queryClient.invalidateQueries({ queryKey: ['traces'] });
    },
  });
  const label = verdict === 'approve' ? 'Approve' : 'Deny';
  return (
    <ActionDialog
      trigger={label}
      triggerTone={verdict === 'approve' ? 'primary' : 'danger'}
      title={`${label} ${approval.requested_operation}?`}
      confirm={label}
      confirmTone={verdict === 'approve' ? 'primary' : 'danger'}
      onConfirm={() => decide.mutateAsync()}
    >
      <p>
        {verdict === 'approve' ? 'The agent may go ahead.' : 'The agent will be told no.'} You decide as {user.name}.
      </p>
      <TextField label="Note (optional)" multiline value={note} onChange={setNote} />
    </ActionDialog>
  );
}
