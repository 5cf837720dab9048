import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { ApiError, api, unwrap } from '../api/client';

type Principal = Awaited<ReturnType<typeof fetchPrincipal>>['data'];
export type Role = NonNullable<Principal['user']>['role'];
export interface Me {
  user: NonNullable<Principal['user']>;
  tenant: Principal['tenant'];
}

const fetchPrincipal = () => unwrap(api.GET('/api/v1/auth/me'));

/** The dashboard works for people only: a session has a user (an API key has none). */
async function fetchMe(): Promise<Me | null> {
  try {
    const { user, tenant } = (await fetchPrincipal()).data;
    return user ? { user, tenant } : null;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

export const ME = ['auth', 'me'] as const;

/** Who is signed in: the user and tenant, null when nobody is, undefined while loading. */
export function useMe() {
  return useQuery({ queryKey: ME, queryFn: fetchMe, staleTime: 60_000 });
}

/** The signed-in user, for pages under RequireSession (which renders nothing until it is known). */
export function useSession(): Me {
  const { data } = useMe();
  if (!data) throw new Error('useSession() outside RequireSession');
  return data;
}

/** What a role may do; the server enforces the same table, the UI only hides what would fail. */
export const abilities = {
  decide: (role: Role) => role === 'admin' || role === 'reviewer',
  configure: (role: Role) => role === 'admin',
};

export function useCan(ability: keyof typeof abilities): boolean {
  return abilities[ability](useSession().user.role);
}

/** Renders its children for a signed-in user; sends anyone else to sign in, and back here afterwards. */
export function RequireSession({ children }: { children: ReactNode }) {
  const me = useMe();
  const location = useLocation();
  if (me.isPending) return <p className="loading">Loading…</p>;
  if (me.isError) throw me.error;
  if (!me.data) {
    const next = location.pathname + location.search;
    return <Navigate to={`/sign-in?next=${encodeURIComponent(next)}`} replace />;
  }
  return children;
}

/**
 * After sign-in, sign-up or sign-out: forget every cached answer, which belonged to someone
 * else; who is signed in is asked again (null after sign-out, so nobody is).
 */
export function useResetSession() {
  const queryClient = useQueryClient();
  return (signedOut = false) => {
    queryClient.clear();
    if (signedOut) queryClient.setQueryData(ME, null);
  };
}
