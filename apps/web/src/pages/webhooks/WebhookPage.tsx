import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Form } from 'react-aria-components';
import { useNavigate, useParams } from 'react-router';
import { api, unwrap } from '../../api/client';
import { ActionDialog } from '../../ui/ActionDialog';
import { StatusBadge } from '../../ui/Badge';
import { Button } from '../../ui/Button';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { CheckboxField, SelectField } from '../../ui/choices';
import { fieldErrors, TextField } from '../../ui/fields';
import { PageHeader } from '../../ui/PageHeader';
import { Time } from '../../ui/Time';
import { EventChoice } from './EventChoice';
import type { WebhookEvent } from './events';
import { WEBHOOKS } from './WebhooksPage';

const STATUSES = ['pending', 'delivered', 'retrying', 'failed'] as const;
const ANY = 'any';

export function WebhookPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [status, setStatus] = useState(ANY);
  const endpoint = useQuery({
    queryKey: [...WEBHOOKS, id],
    queryFn: () => unwrap(api.GET('/api/v1/webhooks/{id}', { params: { path: { id } } })),
  });
  const deliveries = useQuery({
    queryKey: [...WEBHOOKS, id, 'deliveries', status],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/webhooks/{id}/deliveries', {
          params: { path: { id }, query: { limit: 100, ...(status === ANY ? {} : { status: status as (typeof STATUSES)[number] }) } },
        }),
      ),
    refetchInterval: 10_000,
  });
  const test = useMutation({ mutationFn: () => unwrap(api.POST('/api/v1/webhooks/{id}/test', { params: { path: { id } } })) });

  if (endpoint.isPending) return <p className="muted">Loading…</p>;
  if (endpoint.isError) return <ErrorNotice error={endpoint.error} />;
  const e = endpoint.data.data;
  return (
    <section>
      <PageHeader
        title="Webhook endpoint"
        actions={
          <>
            <Button onPress={() => test.mutate()} isDisabled={test.isPending}>
              Send a test event
            </Button>
            <ActionDialog
              trigger="Delete endpoint"
              triggerTone="danger"
              title="Delete this endpoint?"
              confirm="Delete"
              confirmTone="danger"
              onConfirm={async () => {
                await unwrap(api.DELETE('/api/v1/webhooks/{id}', { params: { path: { id } } }));
                // Gone at once from the list it returns to, before that list is fetched again.
                queryClient.setQueryData<{ data: { id: string }[] }>(
                  WEBHOOKS,
                  (list) => list && { ...list, data: list.data.filter((item) => item.id !== id) },
                );
                await queryClient.invalidateQueries({ queryKey: WEBHOOKS });
                navigate('/webhooks');
              }}
            >
              <p>It receives nothing more, and its delivery history is deleted with it.</p>
            </ActionDialog>
          </>
        }
      >
        <span className="mono">{e.url}</span>
      </PageHeader>
      <ErrorNotice error={test.error} />
      {test.data && (
        <output className="notice notice-info test-result">
          Delivered: {test.data.delivered ? 'yes' : 'no'}
          {test.data.http_status !== null && <>, HTTP {test.data.http_status}</>}, {test.data.response_time_ms} ms
          {test.data.error && <>. {test.data.error}</>}
        </output>
      )}
      <EndpointEditor endpoint={e} />
      <h2>Deliveries</h2>
      <div className="filters">
        <SelectField
          label="Delivery status"
          options={[{ id: ANY, label: 'Any status' }, ...STATUSES.map((s) => ({ id: s, label: s }))]}
          value={status}
          onChange={setStatus}
        />
      </div>
      <ErrorNotice error={deliveries.error} />
      {deliveries.data && (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Deliveries</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Response</th>
                <th scope="col">Created</th>
                <th scope="col">Next retry</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.data.data.map((delivery) => (
                <tr key={delivery.id}>
                  <td>{delivery.event_type}</td>
                  <td>
                    <StatusBadge value={delivery.status} />
                  </td>
                  <td>{delivery.attempts}</td>
                  <td>{delivery.http_status ?? <span className="muted">—</span>}</td>
                  <td>
                    <Time value={delivery.created_at} />
                  </td>
                  <td>
                    <Time value={delivery.next_retry_at} relativeToNow />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {deliveries.data.data.length === 0 && <p className="empty">No deliveries{status === ANY ? '' : ` ${status}`}.</p>}
        </div>
      )}
    </section>
  );
}

type Endpoint = { id: string; url: string; events: string[]; is_active: boolean };

function EndpointEditor({ endpoint }: { endpoint: Endpoint }) {
  const queryClient = useQueryClient();
  const [url, setUrl] = useState(endpoint.url);
  // Stored events are always ones the API accepts.
  const [events, setEvents] = useState(endpoint.events as WebhookEvent[]);
  const [active, setActive] = useState(endpoint.is_active);
  const save = useMutation({
    mutationFn: () =>
      unwrap(api.PATCH('/api/v1/webhooks/{id}', { params: { path: { id: endpoint.id } }, body: { url, events, is_active: active } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: WEBHOOKS }),
  });
  const errors = fieldErrors(save.error);
  return (
    <div className="card">
      <h2>Settings</h2>
      <Form
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate();
        }}
      >
        <TextField label="URL" type="url" isRequired value={url} onChange={setUrl} error={errors.url} />
        <EventChoice value={events} onChange={setEvents} error={errors.events} />
        <CheckboxField label="Active" value={active} onChange={setActive} />
        <ErrorNotice error={save.error} />
        {save.isSuccess && <p role="status">Saved.</p>}
        <Button type="submit" tone="primary" isDisabled={save.isPending}>
          Save endpoint
        </Button>
      </Form>
    </div>
  );
}
