import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Form } from 'react-aria-components';
import { api, unwrap } from '../../api/client';
import { Badge } from '../../ui/Badge';
import { Button } from '../../ui/Button';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { CheckboxField, fieldErrors, TextField } from '../../ui/fields';

const KEY = ['settings', 'notifications'] as const;

/** Reviewers' e-mail: one message per approval request to each listed address its owner has confirmed. */
export function EmailSettings() {
  const queryClient = useQueryClient();
  const settings = useQuery({ queryKey: KEY, queryFn: () => unwrap(api.GET('/api/v1/settings/notifications')) });
  const [enabled, setEnabled] = useState(false);
  const [addresses, setAddresses] = useState('');
  useEffect(() => {
    if (!settings.data) return;
    setEnabled(settings.data.data.email_enabled);
    setAddresses(settings.data.data.reviewer_emails.join('\n'));
  }, [settings.data]);
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        api.PUT('/api/v1/settings/notifications', {
          body: { email_enabled: enabled, reviewer_emails: addresses.split(/[\s,]+/).filter(Boolean) },
        }),
      ),
    onSuccess: (saved) => queryClient.setQueryData(KEY, saved),
  });
  const errors = fieldErrors(save.error);
  const unconfirmed = settings.data?.data.unconfirmed_emails ?? [];
  return (
    <div className="card">
      <h2>E-mail</h2>
      <ErrorNotice error={settings.error} />
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
    </div>
  );
}
