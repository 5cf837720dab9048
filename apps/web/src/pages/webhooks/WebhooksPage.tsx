import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Form } from 'react-aria-components';
import { Link } from 'react-router';
import { api, unwrap } from '../../api/client';
import { Button } from '../../ui/Button';
import { CopyButton } from '../../ui/CopyButton';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { fieldErrors, TextField } from '../../ui/fields';
import { PageHeader } from '../../ui/PageHeader';
import { Time } from '../../ui/Time';
import { EventChoice } from './EventChoice';
import type { WebhookEvent } from './events';

export const WEBHOOKS = ['webhooks'] as const;

export function WebhooksPage() {
  const queryClient = useQueryClient();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<WebhookEvent[]>(['approval.requested']);
  const [secret, setSecret] = useState<string | null>(null);
  const endpoints = useQuery({ queryKey: WEBHOOKS, queryFn: () => unwrap(api.GET('/api/v1/webhooks')) });
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/webhooks', { body: { url, events, ...(description ? { description } : {}) } })),
    onSuccess: ({ data }) => {
      setSecret(data.secret);
      setUrl('');
      setDescription('');
      return queryClient.invalidateQueries({ queryKey: WEBHOOKS });
    },
  });
  const errors = fieldErrors(create.error);

  return (
    <section>
      <PageHeader title="Webhooks">Signed HTTP calls when approvals, traces, agents and policies change.</PageHeader>
      {secret && (
        <div className="notice notice-info" role="status">
          <p>The signing secret is shown only now: keep it where your receiver can check signatures with it.</p>
          <p>
            <code className="secret">{secret}</code> <CopyButton value={secret} label="Copy secret" />
          </p>
          <Button onPress={() => setSecret(null)}>I have copied it</Button>
        </div>
      )}
      <div className="card">
        <h2>New endpoint</h2>
        <Form
          onSubmit={(event) => {
            event.preventDefault();
            create.mutate();
          }}
        >
          <div className="grid">
            <TextField
              label="URL"
              type="url"
              description="https, on a public address"
              isRequired
              value={url}
              onChange={setUrl}
              error={errors.url}
            />
            <TextField label="Description" value={description} onChange={setDescription} error={errors.description} />
          </div>
          <EventChoice value={events} onChange={setEvents} error={errors.events} />
          <ErrorNotice error={create.error} />
          <Button type="submit" tone="primary" isDisabled={create.isPending}>
            Add endpoint
          </Button>
        </Form>
      </div>
      <ErrorNotice error={endpoints.error} />
      {endpoints.data && (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Webhook endpoints</caption>
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Events</th>
                <th scope="col">Active</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {endpoints.data.data.map((endpoint) => (
                <tr key={endpoint.id}>
                  <td>
                    <Link to={`/webhooks/${endpoint.id}`}>{endpoint.url}</Link>
                  </td>
                  <td>{endpoint.events.join(', ')}</td>
                  <td>{endpoint.is_active ? 'yes' : 'no'}</td>
                  <td>
                    <Time value={endpoint.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {endpoints.data.data.length === 0 && <p className="empty">No endpoints yet.</p>}
        </div>
      )}
    </section>
  );
}
