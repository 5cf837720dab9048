import type { ComponentType } from 'react';
import { Outlet, type RouteObject, useRouteError } from 'react-router';
import { RequireSession } from './session/session';
import { ErrorNotice } from './ui/ErrorNotice';
import { Layout } from './ui/Layout';

/** Each page is its own chunk, so the first page loads only its own code. */
function page<T extends Record<string, unknown>>(load: () => Promise<T>, name: keyof T) {
  return async () => ({ Component: (await load())[name] as ComponentType });
}

function RouteError() {
  return (
    <div className="content">
      <ErrorNotice error={useRouteError()} />
    </div>
  );
}

export const routes: RouteObject[] = [
  { path: '/sign-in', lazy: page(() => import('./pages/auth/SignInPage'), 'SignInPage') },
  { path: '/sign-up', lazy: page(() => import('./pages/auth/SignUpPage'), 'SignUpPage') },
  // A reviewer opens it from a mail, with no account here.
  { path: '/confirm-email', lazy: page(() => import('./pages/confirm-email/ConfirmEmailPage'), 'ConfirmEmailPage') },
  {
    element: (
      <RequireSession>
        <Outlet />
      </RequireSession>
    ),
    errorElement: <RouteError />,
    children: [
      {
        element: <Layout />,
        errorElement: <RouteError />,
        children: [
          { index: true, lazy: page(() => import('./pages/overview/OverviewPage'), 'OverviewPage') },
          { path: 'approvals', lazy: page(() => import('./pages/approvals/ApprovalsPage'), 'ApprovalsPage') },
          { path: 'approvals/:id', lazy: page(() => import('./pages/approvals/ApprovalPage'), 'ApprovalPage') },
          { path: 'delegations', lazy: page(() => import('./pages/delegations/DelegationsPage'), 'DelegationsPage') },
          { path: 'traces', lazy: page(() => import('./pages/traces/TracesPage'), 'TracesPage') },
          { path: 'traces/:id', lazy: page(() => import('./pages/traces/TracePage'), 'TracePage') },
          { path: 'agents', lazy: page(() => import('./pages/agents/AgentsPage'), 'AgentsPage') },
          { path: 'agents/:id', lazy: page(() => import('./pages/agents/AgentPage'), 'AgentPage') },
          { path: 'policies', lazy: page(() => import('./pages/policies/PoliciesPage'), 'PoliciesPage') },
          { path: 'policies/shadow-report', lazy: page(() => import('./pages/policies/ShadowReportPage'), 'ShadowReportPage') },
          { path: 'policies/:id', lazy: page(() => import('./pages/policies/PolicyPage'), 'PolicyPage') },
          { path: 'api-keys', lazy: page(() => import('./pages/api-keys/ApiKeysPage'), 'ApiKeysPage') },
          { path: 'webhooks', lazy: page(() => import('./pages/webhooks/WebhooksPage'), 'WebhooksPage') },
          { path: 'webhooks/:id', lazy: page(() => import('./pages/webhooks/WebhookPage'), 'WebhookPage') },
          { path: 'users', lazy: page(() => import('./pages/users/UsersPage'), 'UsersPage') },
          { path: 'settings', lazy: page(() => import('./pages/settings/SettingsPage'), 'SettingsPage') },
          { path: '*', Component: NotFound },
        ],
      },
    ],
  },
];

function NotFound() {
  return (
    <section>
      <h1>Page not found</h1>
      <p>There is no page at this address.</p>
    </section>
  );
}
