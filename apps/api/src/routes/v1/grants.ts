import {
  grantSettings,
  presentGrantKey,
  presentGrantSettings,
  presentRedeemedGrant,
  redeemGrant,
  rotateGrantKey,
  saveGrantSettings,
} from '@agov/domain';
import { ACCESS } from '../../access.js';
import { Data } from '../../schemas/common.js';
import { GrantKey, GrantParams, GrantSettings, GrantSettingsBody, RedeemedGrant } from '../../schemas/grants.js';
import type { Routes } from '../types.js';

/** Execution grants: a tool redeems one before it acts; an admin rotates the tenant's signing key and says whether allows get grants. */
export const grantRoutes: Routes = async (app, { deps }) => {
  const tags = ['grants'];

  // Any credential of the grant's tenant: the tool holding the grant runs with whatever key it has.
  app.post(
    '/grants/:jti/redeem',
    {
      config: { access: ACCESS.anyCredential, idempotent: true },
      schema: { operationId: 'redeemGrant', tags, params: GrantParams, response: { 200: Data(RedeemedGrant) } },
    },
    async (request) => ({ data: presentRedeemedGrant(await redeemGrant(deps, request.principal, request.params.jti)) }),
  );

  app.post(
    '/settings/grant-keys/rotate',
    { config: { access: ACCESS.admin }, schema: { operationId: 'rotateGrantKey', tags, response: { 200: Data(GrantKey) } } },
    async (request) => ({ data: presentGrantKey(await rotateGrantKey(deps, request.principal)) }),
  );

  app.get(
    '/settings/grants',
    { config: { access: ACCESS.admin }, schema: { operationId: 'getGrantSettings', tags, response: { 200: Data(GrantSettings) } } },
    async (request) => ({ data: presentGrantSettings(await grantSettings(deps, request.principal.tenantId)) }),
  );

  app.put(
    '/settings/grants',
    {
      config: { access: ACCESS.admin },
      schema: { operationId: 'replaceGrantSettings', tags, body: GrantSettingsBody, response: { 200: Data(GrantSettings) } },
    },
    async (request) => ({
      data: presentGrantSettings(await saveGrantSettings(deps, request.principal, { issueOnAllow: request.body.issue_on_allow })),
    }),
  );
};
