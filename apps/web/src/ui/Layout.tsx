import { useMutation, useQuery } from '@tanstack/react-query';
import { NavLink, Outlet, useNavigate } from 'react-router';
import { api, unwrap } from '../api/client';
import { useCan, useResetSession, useSession } from '../session/session';
import { Button } from './Button';

export const PENDING_COUNT = ['approvals', 'count', 'pending'] as const;

/** The pending count, refreshed by itself so a reviewer sees new requests arrive. */
export function usePendingCount() {
  return useQuery({
    queryKey: PENDING_COUNT,
    queryFn: () => unwrap(api.GET('/api/v1/approvals/count', { params: { query: { status: 'pending' } } })),
    refetchInterval: 10_000,
  });
}

/** The signed-in shell: navigation by role, who is signed in, and the page. */
export function Layout() {
  const { user, tenant } = useSession();
  const configure = useCan('configure');
  const decide = useCan('decide');
  const pending = usePendingCount().data?.count ?? 0;
  const navigate = useNavigate();
  const resetSession = useResetSession();
  const signOut = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/auth/logout')),
    onSettled: () => {
      resetSession(true);
      navigate('/sign-in');
    },
  });

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Agent Governance</span>
        <span className="muted tenant">{tenant.name}</span>
        <span className="who">
          {user.name} <span className="muted">({user.role})</span>
        </span>
        <Button tone="quiet" onPress={() => signOut.mutate()}>
          Sign out
        </Button>
      </header>
      <nav className="sidebar" aria-label="Main">
        <NavLink to="/" end>
          Overview
        </NavLink>
        <NavLink to="/approvals">
          Approvals
          {pending > 0 && (
            // The space is read out ("Approvals 3 pending") and the badge sits apart; none is left when there is no badge.
            <>
              {' '}
              <span className="count">
                {pending}
                <span className="sr-only"> pending</span>
              </span>
            </>
          )}
        </NavLink>
        {decide && <NavLink to="/delegations">Delegations</NavLink>}
        <NavLink to="/traces">Traces</NavLink>
        <NavLink to="/agents">Agents</NavLink>
        <NavLink to="/policies">Policies</NavLink>
        {configure && <NavLink to="/api-keys">API keys</NavLink>}
        {configure && <NavLink to="/webhooks">Webhooks</NavLink>}
        {configure && <NavLink to="/users">Users</NavLink>}
        {configure && <NavLink to="/settings">Settings</NavLink>}
      </nav>
      <main id="main" className="content" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
