import { Type } from '@sinclair/typebox';
import { confirmEmail } from '@agov/domain';
import { PUBLIC } from '../../access.js';
import { EmailConfirmationBody } from '../../schemas/settings.js';
import type { Routes } from '../types.js';

/**
 * A reviewer confirms their address with the token of the link mailed to them. The link opens
 * a dashboard page that posts here when its button is pressed: a mail scanner that follows
 * the link confirms nothing. No credential (the token is one); counted per client address.
 */
export const emailConfirmationRoutes: Routes = async (app, { deps }) => {
  app.post(
    '/email-confirmations',
    {
      config: { access: PUBLIC },
      schema: { operationId: 'confirmEmail', tags: ['settings'], body: EmailConfirmationBody, response: { 204: Type.Null() } },
    },
    async (request, reply) => {
      await confirmEmail(deps, request.body.token);
      return reply.status(204).send(null);
    },
  );
};
