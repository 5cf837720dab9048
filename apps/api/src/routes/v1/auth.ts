import { Type } from '@sinclair/typebox';
import { endSession, login, presentLogin, presentSignup, presentWhoAmI, signup, whoAmI } from '@agov/domain';
import { ACCESS, PUBLIC } from '../../access.js';
import type { Routes } from '../types.js';
import { clearSessionCookie, setSessionCookie } from '../../session-cookie.js';
import { Data } from '../../schemas/common.js';
import { IssuedApiKey, LoginBody, SignupBody, Tenant, User } from '../../schemas/identity.js';

export const authRoutes: Routes = async (app, { deps, config }) => {
  const secureCookies = config.mode === 'production';

  app.post(
    '/auth/signup',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'signup',
        tags: ['auth'],
        body: SignupBody,
        response: { 201: Data(Type.Object({ tenant: Tenant, user: User, api_key: IssuedApiKey })) },
      },
    },
    async (request, reply) => {
      const result = await signup(deps, request.body);
      setSessionCookie(reply, result.session, secureCookies);
      return reply.status(201).send({ data: presentSignup(result) });
    },
  );

  app.post(
    '/auth/login',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'login',
        tags: ['auth'],
        body: LoginBody,
        response: { 200: Data(Type.Object({ user: User, tenant: Tenant })) },
      },
    },
    async (request, reply) => {
      const result = await login(deps, request.body, request.ip);
      setSessionCookie(reply, result.session, secureCookies);
      return { data: presentLogin(result) };
    },
  );

  app.post(
    '/auth/logout',
    { config: { access: ACCESS.anyCredential }, schema: { operationId: 'logout', tags: ['auth'], response: { 204: Type.Null() } } },
    async (request, reply) => {
      await endSession(deps, request.principal);
      clearSessionCookie(reply, secureCookies);
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/auth/me',
    {
      config: { access: ACCESS.anyCredential },
      schema: {
        operationId: 'getCurrentIdentity',
        tags: ['auth'],
        response: {
          200: Data(
            Type.Object({
              user: Type.Union([User, Type.Null()]),
              tenant: Tenant,
              role: Type.Union([Type.String(), Type.Null()]),
              api_key: Type.Union([
                Type.Object({ id: Type.String(), name: Type.String(), scopes: Type.Array(Type.String()) }),
                Type.Null(),
              ]),
            }),
          ),
        },
      },
    },
    async (request) => ({ data: presentWhoAmI(request.principal, await whoAmI(deps, request.principal)) }),
  );
};
