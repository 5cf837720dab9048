import { getNotificationSettings, presentNotificationSettings, saveNotificationSettings } from '@agov/domain';
import { ACCESS } from '../../access.js';
import { Data } from '../../schemas/common.js';
import { NotificationSettings, NotificationSettingsBody } from '../../schemas/settings.js';
import type { Routes } from '../types.js';

/** The tenant's e-mail notifications: whether approval requests are mailed, and to whom. */
export const settingsRoutes: Routes = async (app, { deps }) => {
  const config = { access: ACCESS.admin };
  const tags = ['settings'];

  app.get(
    '/settings/notifications',
    { config, schema: { operationId: 'getNotificationSettings', tags, response: { 200: Data(NotificationSettings) } } },
    async (request) => ({
      data: presentNotificationSettings(await getNotificationSettings(deps, request.principal)),
    }),
  );

  // Replaces both fields; a tenant that never saved reads e-mail off and no reviewers.
  app.put(
    '/settings/notifications',
    {
      config,
      schema: {
        operationId: 'replaceNotificationSettings',
        tags,
        body: NotificationSettingsBody,
        response: { 200: Data(NotificationSettings) },
      },
    },
    async (request) => ({
      data: presentNotificationSettings(await saveNotificationSettings(deps, request.principal, request.body)),
    }),
  );
};
