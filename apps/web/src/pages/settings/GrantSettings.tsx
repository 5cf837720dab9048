import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Form } from 'react-aria-components';
import { api, unwrap } from '../../api/client';
import { Button } from '../../ui/Button';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { CheckboxField } from '../../ui/choices';
import { SettingsCard } from './SettingsCard';

const KEY = ['settings', 'grants'] as const;

/** Execution grants: whether every allow carries one, and the signing key's rotation. */
export function GrantSettings() {
  const settings = useQuery({ queryKey: KEY, queryFn: () => unwrap(api.GET('/api/v1/settings/grants')) });
  return (
    <SettingsCard title="Execution grants" stored={settings}>
      {({ data }) => <GrantSettingsForm issueOnAllow={data.issue_on_allow} />}
    </SettingsCard>
  );
}

function GrantSettingsForm({ issueOnAllow }: { issueOnAllow: boolean }) {
  const queryClient = useQueryClient();
  const [onAllow, setOnAllow] = useState(issueOnAllow);
  const save = useMutation({
    mutationFn: () => unwrap(api.PUT('/api/v1/settings/grants', { body: { issue_on_allow: onAllow } })),
    onSuccess: (saved) => queryClient.setQueryData(KEY, saved),
  });
  const rotate = useMutation({ mutationFn: () => unwrap(api.POST('/api/v1/settings/grant-keys/rotate')) });
  return (
    <>
      <p className="muted">
        Every approved request carries a signed grant that a tool verifies offline before it acts. The tenant's public keys are at{' '}
        <code>/.well-known/jwks.json</code>.
      </p>
      <Form
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate();
        }}
      >
        <CheckboxField label="Sign a grant for every allowed action too" value={onAllow} onChange={setOnAllow} />
        <ErrorNotice error={save.error} />
        {save.isSuccess && <p role="status">Saved.</p>}
        <Button type="submit" tone="primary" isDisabled={save.isPending}>
          Save grant settings
        </Button>
      </Form>
      <p className="muted">
        Rotating makes a new signing key current at once; the old key stays published until the last grant it signed expires.
      </p>
      <ErrorNotice error={rotate.error} />
      {rotate.data && (
        <p role="status">
          New key <code className="grant-kid">{rotate.data.data.kid}</code> is current.
        </p>
      )}
      <Button onPress={() => rotate.mutate()} isDisabled={rotate.isPending}>
        Rotate signing key
      </Button>
    </>
  );
}
