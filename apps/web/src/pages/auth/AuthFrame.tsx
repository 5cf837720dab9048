import type { ReactNode } from 'react';

/** Only a path of this app: a `next` pointing elsewhere would make sign-in an open redirect. */
export function safeNext(next: string | null): string {
  return next?.startsWith('/') && !next.startsWith('//') ? next : '/';
}

export function AuthFrame({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="auth" id="main">
      <p className="brand">Agent Governance</p>
      <h1>{title}</h1>
      {children}
    </main>
  );
}
