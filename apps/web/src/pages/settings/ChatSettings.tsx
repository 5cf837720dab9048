import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Form } from 'react-aria-components';
import { api, unwrap } from '../../api/client';
import { Button } from '../../ui/Button';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { CheckboxField, SelectField } from '../../ui/choices';
import { fieldErrors, TextField } from '../../ui/fields';
import { SettingsCard } from './SettingsCard';

const KEY = ['settings', 'chat'] as const;
type Mode = 'incoming_webhook' | 'bot';

const loadSettings = () => unwrap(api.GET('/api/v1/integrations/chat'));
type Stored = Awaited<ReturnType<typeof loadSettings>>['data'];

/** Slack: cards with Approve and Deny (bot) or a link to the dashboard (incoming webhook). Secrets are never shown back. */
export function ChatSettings() {
  const settings = useQuery({ queryKey: KEY, queryFn: loadSettings });
  return (
    <SettingsCard title="Slack" stored={settings}>
      {({ data }) => <ChatSettingsForm stored={data} />}
    </SettingsCard>
  );
}

function ChatSettingsForm({ stored }: { stored: Stored }) {
  const queryClient = useQueryClient();
  const configured = 'mode' in stored && stored.mode ? stored : null;
  const [mode, setMode] = useState<Mode>(configured?.mode ?? 'incoming_webhook');
  const [enabled, setEnabled] = useState(configured?.enabled ?? true);
  const [fields, setFields] = useState({
    webhook_url: '',
    app_id: '',
    app_secret: '',
    bot_token: '',
    team_id: '',
    channel_id: '',
    escalation_channel: '',
    ...('app_id' in stored && {
      app_id: stored.app_id,
      team_id: stored.team_id,
      channel_id: stored.channel_id,
      escalation_channel: stored.escalation_channel ?? '',
    }),
  });
  const save = useMutation({
    mutationFn: () => {
      // An empty secret field keeps the stored secret.
      const given = Object.fromEntries(
        Object.entries(fields).filter(
          ([name, value]) => value !== '' && (mode === 'bot' ? name !== 'webhook_url' : name === 'webhook_url'),
        ),
      );
      return unwrap(api.PUT('/api/v1/integrations/chat', { body: { mode, enabled, ...given } }));
    },
    onSuccess: (saved) => {
      setFields((f) => ({ ...f, webhook_url: '', app_secret: '', bot_token: '' }));
      queryClient.setQueryData(KEY, saved);
    },
  });
  const test = useMutation({ mutationFn: () => unwrap(api.POST('/api/v1/integrations/chat/test')) });
  const errors = fieldErrors(save.error);
  const set = (name: keyof typeof fields) => (value: string) => setFields({ ...fields, [name]: value });
  const isSet = (flag: string) => Boolean(flag in stored && (stored as Record<string, unknown>)[flag]);
  const secretHint = (flag: string) => (isSet(flag) ? 'Set. Leave empty to keep it.' : 'Not set.');
  const callback = `${window.location.origin}/api/v1/integrations/chat/callback`;

  return (
    <>
      <details>
        <summary>How to connect Slack</summary>
        <ol>
          <li>Create a Slack app for your workspace at api.slack.com/apps.</li>
          <li>
            For cards with Approve and Deny buttons (bot mode): give the bot the scopes <code>chat:write</code>, <code>users:read</code> and{' '}
            <code>users:read.email</code>, install it, and invite it to the channel.
          </li>
          <li>
            Turn on Interactivity with the request URL <code>{callback}</code>.
          </li>
          <li>Copy the bot token, the signing secret, the app id, the team id and the channel id below.</li>
          <li>Or, for cards that only link here, add an Incoming Webhook to a channel and paste its URL.</li>
        </ol>
        <p>Reviewers press buttons as themselves: their Slack e-mail must be the e-mail of a reviewer or admin here.</p>
      </details>
      <Form
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate();
        }}
      >
        <SelectField
          label="Mode"
          options={[
            { id: 'incoming_webhook', label: 'Incoming webhook (link to the dashboard)' },
            { id: 'bot', label: 'Bot (Approve and Deny in Slack)' },
          ]}
          value={mode}
          onChange={(value) => setMode(value as Mode)}
        />
        <CheckboxField label="Post approval requests to Slack" value={enabled} onChange={setEnabled} />
        {mode === 'incoming_webhook' ? (
          <TextField
            label="Incoming webhook URL"
            type="url"
            description={secretHint('has_webhook_url')}
            value={fields.webhook_url}
            onChange={set('webhook_url')}
            error={errors.webhook_url}
          />
        ) : (
          <div className="grid">
            <TextField
              label="Bot token"
              type="password"
              description={secretHint('has_bot_token')}
              value={fields.bot_token}
              onChange={set('bot_token')}
              error={errors.bot_token}
            />
            <TextField
              label="Signing secret"
              type="password"
              description={secretHint('has_app_secret')}
              value={fields.app_secret}
              onChange={set('app_secret')}
              error={errors.app_secret}
            />
            <TextField label="App id" value={fields.app_id} onChange={set('app_id')} error={errors.app_id} />
            <TextField label="Team id" value={fields.team_id} onChange={set('team_id')} error={errors.team_id} />
            <TextField label="Channel id" value={fields.channel_id} onChange={set('channel_id')} error={errors.channel_id} />
            <TextField
              label="Escalation channel id"
              description="Where a request still pending at its rule's escalation time is posted again. Empty: escalations are not posted"
              value={fields.escalation_channel}
              onChange={set('escalation_channel')}
              error={errors.escalation_channel}
            />
          </div>
        )}
        <ErrorNotice error={save.error} />
        {save.isSuccess && <p role="status">Saved.</p>}
        <div className="actions">
          <Button type="submit" tone="primary" isDisabled={save.isPending}>
            Save Slack settings
          </Button>
          <Button onPress={() => test.mutate()} isDisabled={test.isPending}>
            Send a test card
          </Button>
        </div>
      </Form>
      <ErrorNotice error={test.error} />
      {test.data && (
        <output className="notice notice-info chat-test">
          Delivered: {test.data.data.delivered ? 'yes' : 'no'}
          {test.data.data.error && <>. {test.data.data.error}</>}
        </output>
      )}
    </>
  );
}
