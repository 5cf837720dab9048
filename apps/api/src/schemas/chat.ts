import { Type } from '@sinclair/typebox';
import { CHAT_MODES } from '@agov/domain';
import { Body, StringEnum, Timestamp } from './common.js';

/** Slack's ids: app (A…), team (T… or E…), channel (C…, G…). */
const SlackId = Type.String({ pattern: '^[A-Z0-9]{2,64}$', examples: ['T0123ABCD'] });

/**
 * One body for both modes; which fields a mode takes, and which stored secrets may be left
 * out, is the domain's rule (chat/settings.ts). Incoming-webhook URLs follow the webhook
 * target rules there; here only the size.
 */
export const ChatSettingsBody = Body({
  mode: StringEnum(CHAT_MODES),
  enabled: Type.Boolean(),
  webhook_url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
  app_id: Type.Optional(SlackId),
  app_secret: Type.Optional(
    Type.String({ minLength: 8, maxLength: 256, pattern: '^\\S+$', examples: ['8f14e45fceea167a5a36dedd4bea2543'] }),
  ),
  bot_token: Type.Optional(Type.String({ maxLength: 256, pattern: '^xoxb-[A-Za-z0-9-]+$', examples: ['xoxb-1234-5678-abcdef'] })),
  team_id: Type.Optional(SlackId),
  channel_id: Type.Optional(SlackId),
  escalation_channel: Type.Optional(
    Type.String({
      pattern: '^[A-Z0-9]{2,64}$',
      examples: ['C0456EFGH'],
      description: 'Bot mode: where a request still pending at its escalate_at is posted again. Left out: escalations are not posted.',
    }),
  ),
});

export const ChatSettings = Type.Union(
  [
    Type.Object({ mode: Type.Null(), enabled: Type.Literal(false) }),
    Type.Object({
      mode: Type.Literal('incoming_webhook'),
      enabled: Type.Boolean(),
      has_webhook_url: Type.Boolean(),
      updated_at: Timestamp,
    }),
    Type.Object({
      mode: Type.Literal('bot'),
      enabled: Type.Boolean(),
      app_id: Type.String(),
      team_id: Type.String(),
      channel_id: Type.String(),
      escalation_channel: Type.Union([Type.String(), Type.Null()]),
      has_app_secret: Type.Boolean(),
      has_bot_token: Type.Boolean(),
      updated_at: Timestamp,
    }),
  ],
  { title: 'ChatSettings' },
);

export const ChatTestResult = Type.Object({ delivered: Type.Boolean(), error: Type.Union([Type.String(), Type.Null()]) });
