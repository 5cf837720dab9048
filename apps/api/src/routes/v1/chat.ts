import {
  AppError,
  getChatSettings,
  handleChatCallback,
  presentChatSettings,
  presentChatTestResult,
  putChatSettings,
  sendTestChatMessage,
} from '@agov/domain';
import { ACCESS, PUBLIC } from '../../access.js';
import { noBody } from '../../plugins/validation.js';
import { Data } from '../../schemas/common.js';
import { ChatSettings, ChatSettingsBody, ChatTestResult } from '../../schemas/chat.js';
import type { Routes } from '../types.js';

/** Slack's interaction payloads are a few KiB; the secret of each integration of the named workspace hashes the whole body. */
const CALLBACK_MAX_BYTES = 64 * 1024;

/** The tenant's Slack integration (admin), and the callback Slack calls when a card's button is pressed. */
export const chatRoutes: Routes = async (app, options) => {
  const { deps } = options;
  const config = { access: ACCESS.admin };
  const tags = ['chat'];

  // A tenant that never saved settings reads `{mode: null, enabled: false}`, not 404.
  app.get(
    '/integrations/chat',
    { config, schema: { operationId: 'getChatSettings', tags, response: { 200: Data(ChatSettings) } } },
    async (request) => ({
      data: presentChatSettings(await getChatSettings(deps, request.principal)),
    }),
  );

  app.put(
    '/integrations/chat',
    { config, schema: { operationId: 'replaceChatSettings', tags, body: ChatSettingsBody, response: { 200: Data(ChatSettings) } } },
    async (request) => ({ data: presentChatSettings(await putChatSettings(deps, request.principal, request.body)) }),
  );

  app.post(
    '/integrations/chat/test',
    { config, preValidation: noBody, schema: { operationId: 'sendTestChatMessage', tags, response: { 200: Data(ChatTestResult) } } },
    async (request) => ({ data: presentChatTestResult(await sendTestChatMessage(deps, request.principal)) }),
  );

  await app.register(callbackRoute, options);
};

/**
 * Encapsulated, so its body parser (raw bytes of any content type: the signature covers them
 * exactly) applies to this route alone. Answers 200 with an empty body once the press is
 * handled; what the presser should know reaches them in Slack.
 */
const callbackRoute: Routes = async (app, { deps }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => {
    if ((body as Buffer).length > CALLBACK_MAX_BYTES) {
      return done(new AppError('payload_too_large', `Chat callback body is larger than ${CALLBACK_MAX_BYTES / 1024} KiB`), undefined);
    }
    done(null, body);
  });

  // Slack presses arrive from Slack's few addresses for every tenant: an allowance of their
  // own, generous, and apart from the unauthenticated one, bounds what forged ones can cost.
  const callback = { access: PUBLIC, addressLimit: { category: 'chat_callback', perMinute: deps.rateLimits.perMinute.chatCallback } };
  app.post(
    '/integrations/chat/callback',
    { config: callback, schema: { operationId: 'receiveChatCallback', tags: ['chat'] } },
    async (request, reply) => {
      const header = (name: string) => {
        const value = request.headers[name];
        return typeof value === 'string' ? value : undefined;
      };
      await handleChatCallback(deps, {
        signature: header('x-chat-signature') ?? header('x-slack-signature'),
        timestamp: header('x-chat-timestamp') ?? header('x-slack-request-timestamp'),
        body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
      });
      return reply.status(200).send();
    },
  );
};
