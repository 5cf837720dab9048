import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Form } from 'react-aria-components';
import { api, unwrap } from '../../api/client';
import { Button } from '../../ui/Button';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { fieldErrors, TextField } from '../../ui/fields';
import { endOfDay } from './in-force';
import { type DelegationBody, delegationsKey } from './queries';

const EMPTY = { delegateEmail: '', until: '', reason: '' };

/** Hands the signed-in reviewer's votes to another reviewer or admin from now until the end of a chosen day. */
export function NewDelegationForm() {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState(EMPTY);
  const [untilMissing, setUntilMissing] = useState(false);
  const create = useMutation({
    mutationFn: (body: DelegationBody) => unwrap(api.POST('/api/v1/delegations', { body })),
    onSuccess: () => {
      setDraft(EMPTY);
      return queryClient.invalidateQueries({ queryKey: delegationsKey });
    },
  });
  const errors = fieldErrors(create.error);
  const set = (field: keyof typeof EMPTY) => (value: string) => setDraft({ ...draft, [field]: value });

  return (
    <div className="card">
      <h2>Delegate your votes</h2>
      <Form
        onSubmit={(event) => {
          event.preventDefault();
          // The end is a day the browser turns into an instant; without one there is nothing to send.
          setUntilMissing(!draft.until);
          if (!draft.until) return;
          create.mutate({
            delegate_email: draft.delegateEmail.trim(),
            ends_at: endOfDay(draft.until),
            ...(draft.reason.trim() ? { reason: draft.reason.trim() } : {}),
          });
        }}
      >
        <div className="grid">
          <TextField
            label="Delegate's e-mail"
            description="A reviewer or admin of your organisation"
            type="email"
            isRequired
            value={draft.delegateEmail}
            onChange={set('delegateEmail')}
            error={errors.delegate_email}
          />
          <TextField
            label="Until"
            description="The delegation ends at the end of this day; 90 days at most"
            type="date"
            isRequired
            value={draft.until}
            onChange={set('until')}
            error={untilMissing ? 'is required' : errors.ends_at}
          />
          <TextField label="Reason (optional)" value={draft.reason} onChange={set('reason')} error={errors.reason} />
        </div>
        <ErrorNotice error={create.error} />
        <Button type="submit" tone="primary" isDisabled={create.isPending}>
          Delegate
        </Button>
      </Form>
    </div>
  );
}
