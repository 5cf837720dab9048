import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Form } from 'react-aria-components';
import { api, unwrap } from '../../api/client';
import { type Role, useSession } from '../../session/session';
import { ActionDialog } from '../../ui/ActionDialog';
import { Button } from '../../ui/Button';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { optionsOf, SelectField } from '../../ui/choices';
import { fieldErrors, TextField } from '../../ui/fields';
import { PageHeader } from '../../ui/PageHeader';
import { Time } from '../../ui/Time';

const ROLES: readonly Role[] = ['admin', 'reviewer', 'viewer'];
const USERS = ['users'] as const;

export function UsersPage() {
  const { user: me } = useSession();
  const queryClient = useQueryClient();
  const [invite, setInvite] = useState({ name: '', email: '', password: '', role: 'reviewer' as Role });
  const users = useQuery({
    queryKey: USERS,
    queryFn: () => unwrap(api.GET('/api/v1/users', { params: { query: { limit: 100, offset: 0 } } })),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: USERS });
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/users', { body: invite })),
    onSuccess: () => {
      setInvite({ name: '', email: '', password: '', role: 'reviewer' });
      return refresh();
    },
  });
  const changeRole = useMutation({
    mutationFn: ({ id, role }: { id: string; role: Role }) =>
      unwrap(api.PATCH('/api/v1/users/{id}', { params: { path: { id } }, body: { role } })),
    onSettled: refresh,
  });
  const errors = fieldErrors(create.error);
  const set = (field: keyof typeof invite) => (value: string) => setInvite({ ...invite, [field]: value });

  return (
    <section>
      <PageHeader title="Users">Viewers see everything; reviewers also decide approvals and export; admins also configure.</PageHeader>
      <div className="card">
        <h2>Add a user</h2>
        <Form
          onSubmit={(event) => {
            event.preventDefault();
            create.mutate();
          }}
        >
          <div className="grid">
            <TextField label="Name" isRequired value={invite.name} onChange={set('name')} error={errors.name} />
            <TextField label="E-mail" type="email" isRequired value={invite.email} onChange={set('email')} error={errors.email} />
            <TextField
              label="Initial password"
              type="password"
              autoComplete="new-password"
              description="At least 12 characters; tell them to keep it safe."
              isRequired
              value={invite.password}
              onChange={set('password')}
              error={errors.password}
            />
            <SelectField label="Role" options={optionsOf(ROLES)} value={invite.role} onChange={set('role')} />
          </div>
          <ErrorNotice error={create.error} />
          <Button type="submit" tone="primary" isDisabled={create.isPending}>
            Add user
          </Button>
        </Form>
      </div>
      <ErrorNotice error={users.error ?? changeRole.error} />
      {users.data && (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Users</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">E-mail</th>
                <th scope="col">Role</th>
                <th scope="col">Since</th>
                <th scope="col">Remove</th>
              </tr>
            </thead>
            <tbody>
              {users.data.data.map((user) => (
                <tr key={user.id}>
                  <td>
                    {user.name}
                    {user.id === me.id && <span className="muted"> (you)</span>}
                  </td>
                  <td>{user.email}</td>
                  <td>
                    <SelectField
                      label={`Role of ${user.name}`}
                      options={optionsOf(ROLES)}
                      value={user.role}
                      onChange={(role) => changeRole.mutate({ id: user.id, role: role as Role })}
                    />
                  </td>
                  <td>
                    <Time value={user.created_at} />
                  </td>
                  <td>
                    <ActionDialog
                      trigger={`Remove ${user.name}`}
                      triggerTone="danger"
                      title={`Remove ${user.name}?`}
                      confirm="Remove"
                      confirmTone="danger"
                      onConfirm={() => unwrap(api.DELETE('/api/v1/users/{id}', { params: { path: { id: user.id } } })).then(refresh)}
                    >
                      <p>They are signed out and can no longer sign in.</p>
                    </ActionDialog>
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
