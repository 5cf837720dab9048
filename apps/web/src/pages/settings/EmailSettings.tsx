import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Form } from 'react-aria-components';
import { api, unwrap } from '../../api/client';
import { Badge } from '../../ui/Badge';
import { Button } from '../../ui/Button';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { CheckboxField } from '../../ui/choices';
import { fieldErrors, TextField } from '../../ui/fields';
import { SettingsCard } from './SettingsCard';

const KEY = ['settings', 'notifications'] as const;

const listOf = (addresses: string) => addresses.split(/[\s,]+/).filter(Boolean);

const loadSettings = () => unwrap(api.GET('/api/v1/settings/notifications'));
type Stored = Awaited<ReturnType<typeof loadSettings>>['data'];

/** Reviewers' e-mail: one message per approval request to each listed address its owner has confirmed. */
export function EmailSettings() {
  const settings = useQuery({ queryKey: KEY, queryFn: loadSettings });
  return (
    <SettingsCard title="E-mail" stored={settings}>
      {({ data }) => <EmailSettingsForm stored={data} />}
    </SettingsCard>
  );
}

function EmailSettingsForm({ stored }: { stored: Stored }) {
  const queryClient = useQueryClient();
  const [enabled, setEnabled] = useState(stored.email_enabled);
  const [addresses, setAddresses] = useState(stored.reviewer_emails.join('\n'));
  const [escalationAddresses, setEscalationAddresses] = useState(stored.escalation_emails.join('\n'));
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        api.PUT('/api/v1/settings/notifications', {
          body: { email_enabled: enabled, reviewer_emails: listOf(addresses), escalation_emails: listOf(escalationAddresses) },
        }),
      ),
    onSuccess: (saved) => queryClient.setQueryData(KEY, saved),
  });
  const errors = fieldErrors(save.error);
  const unconfirmed = stored.unconfirmed_emails;
  return (
    <Form
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate();
      }}
    >
      <CheckboxField label="E-mail reviewers when an approval is requested" value={enabled} onChange={setEnabled} />
      <TextField
        label="Reviewer addresses"
        description="One per line"
        multiline
        rows={3}
        value={addresses}
        onChange={setAddresses}
        error={errors.reviewer_emails}
      />
      <TextField
        label="Escalation addresses"
        description="One per line: told once when a request is still pending at its rule's escalation time"
        multiline
        rows={2}
        value={escalationAddresses}
        onChange={setEscalationAddresses}
        error={errors.escalation_emails}
      />
      {unconfirmed.length > 0 && (
        <div className="awaiting">
          <p className="muted">
            An address gets approval requests only once its owner confirms it with the link mailed when it was saved (at most one link a
            day); until then nothing is sent to it.
          </p>
          <ul aria-label="Addresses awaiting confirmation">
            {unconfirmed.map((address) => (
              <li key={address}>
                {address} <Badge tone="warning">awaiting confirmation</Badge>
              </li>
            ))}
          </ul>
        </div>
      )}
      <ErrorNotice error={save.error} />
      {save.isSuccess && <p role="status">Saved.</p>}
      <Button type="submit" tone="primary" isDisabled={save.isPending}>
        Save e-mail settings
      </Button>
    </Form>
  );
}
