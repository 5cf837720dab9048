import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Form } from 'react-aria-components';
import { api, unwrap } from '../../api/client';
import type { paths } from '@agov/sdk';
import { ActionDialog } from '../../ui/ActionDialog';
import { Button } from '../../ui/Button';
import { CopyButton } from '../../ui/CopyButton';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { CheckboxField, SelectField } from '../../ui/choices';
import { fieldErrors, TextField } from '../../ui/fields';
import { PageHeader } from '../../ui/PageHeader';
import { Time } from '../../ui/Time';

type Scope = paths['/api/v1/api-keys']['post']['requestBody']['content']['application/json']['scopes'][number];

const SCOPES: readonly Scope[] = [
  'evaluate',
  'agents:read',
  'agents:write',
  'agents:lifecycle',
  'policies:read',
  'policies:write',
  'traces:read',
  'traces:write',
  'approvals:read',
  'approvals:write',
  'admin',
];

/** The spec's dashboard presets. */
const PRESETS: Record<string, { label: string; scopes: readonly Scope[] }> = {
  runtime: { label: 'Agent runtime', scopes: ['evaluate', 'traces:read', 'traces:write', 'approvals:read', 'policies:read'] },
  approvals: { label: 'Approval client', scopes: ['approvals:read', 'approvals:write'] },
  setup: { label: 'Project setup', scopes: ['agents:write', 'policies:write', 'policies:read', 'agents:read'] },
  readonly: { label: 'Read only', scopes: ['agents:read', 'policies:read', 'traces:read', 'approvals:read'] },
  custom: { label: 'Custom', scopes: [] },
};

const KEYS = ['api-keys'] as const;

/** A secret the service shows once: here until dismissed, then gone from the page and from memory. */
function SecretOnce({ secret, onDismiss }: { secret: { name: string; key: string }; onDismiss: () => void }) {
  return (
    <div className="notice notice-info" role="status">
      <p>
        The key <strong>{secret.name}</strong> is shown only now. Copy it somewhere safe: it cannot be shown again.
      </p>
      <p>
        <code className="secret">{secret.key}</code> <CopyButton value={secret.key} label="Copy key" />
      </p>
      <Button onPress={onDismiss}>I have copied it</Button>
    </div>
  );
}

export function ApiKeysPage() {
  const queryClient = useQueryClient();
  const [secret, setSecret] = useState<{ name: string; key: string } | null>(null);
  const [name, setName] = useState('');
  const [preset, setPreset] = useState('runtime');
  const [custom, setCustom] = useState<Scope[]>([]);
  const [expires, setExpires] = useState('');
  const keys = useQuery({
    queryKey: KEYS,
    queryFn: () => unwrap(api.GET('/api/v1/api-keys', { params: { query: { limit: 100, offset: 0 } } })),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: KEYS });
  const scopes = preset === 'custom' ? custom : [...PRESETS[preset]!.scopes];
  const create = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/v1/api-keys', { body: { name, scopes, expires_at: expires ? new Date(expires).toISOString() : null } })),
    onSuccess: ({ data }) => {
      setSecret({ name: data.name, key: data.key });
      setName('');
      return refresh();
    },
  });
  const errors = fieldErrors(create.error);

  return (
    <section>
      <PageHeader title="API keys">
        Keys let agent runtimes and other programs call the API. Each carries only the scopes it needs.
      </PageHeader>
      {secret && <SecretOnce secret={secret} onDismiss={() => setSecret(null)} />}
      <div className="card">
        <h2>New key</h2>
        <Form
          onSubmit={(event) => {
            event.preventDefault();
            create.mutate();
          }}
        >
          <div className="grid">
            <TextField label="Key name" isRequired value={name} onChange={setName} error={errors.name} />
            <SelectField
              label="Scopes"
              options={Object.entries(PRESETS).map(([id, { label }]) => ({ id, label }))}
              value={preset}
              onChange={setPreset}
              error={errors.scopes}
            />
            <TextField
              label="Expires"
              description="Empty: never"
              type="datetime-local"
              value={expires}
              onChange={setExpires}
              error={errors.expires_at}
            />
          </div>
          {preset === 'custom' ? (
            <fieldset className="scopes">
              <legend>Scopes of the key</legend>
              {SCOPES.map((scope) => (
                <CheckboxField
                  key={scope}
                  label={scope}
                  value={custom.includes(scope)}
                  onChange={(on) => setCustom(on ? [...custom, scope] : custom.filter((s) => s !== scope))}
                />
              ))}
            </fieldset>
          ) : (
            <p className="muted">Scopes: {scopes.join(', ')}</p>
          )}
          <ErrorNotice error={create.error} />
          <Button type="submit" tone="primary" isDisabled={create.isPending}>
            Create key
          </Button>
        </Form>
      </div>
      <ErrorNotice error={keys.error} />
      {keys.data && (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">API keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Scopes</th>
                <th scope="col">Last used</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.data.map((key) => (
                <tr key={key.id}>
                  <td>{key.name}</td>
                  <td className="mono">{key.prefix}</td>
                  <td>{key.scopes.join(', ')}</td>
                  <td>
                    <Time value={key.last_used_at} relativeToNow />
                  </td>
                  <td>
                    <Time value={key.created_at} />
                  </td>
                  <td>{key.expires_at ? <Time value={key.expires_at} /> : 'never'}</td>
                  <td>
                    <div className="actions">
                      <ActionDialog
                        trigger={`Rotate ${key.name}`}
                        title={`Rotate ${key.name}?`}
                        confirm="Rotate"
                        onConfirm={async () => {
                          const { data } = await unwrap(api.POST('/api/v1/api-keys/{id}/rotate', { params: { path: { id: key.id } } }));
                          setSecret({ name: key.name, key: data.key });
                          await refresh();
                        }}
                      >
                        <p>A new secret replaces the old one, which stops working at once. Update every program that uses it.</p>
                      </ActionDialog>
                      <ActionDialog
                        trigger={`Delete ${key.name}`}
                        triggerTone="danger"
                        title={`Delete ${key.name}?`}
                        confirm="Delete"
                        confirmTone="danger"
                        onConfirm={() => unwrap(api.DELETE('/api/v1/api-keys/{id}', { params: { path: { id: key.id } } })).then(refresh)}
                      >
                        <p>Programs using this key are refused from now on.</p>
                      </ActionDialog>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
