import type { ReactNode } from 'react';

export function AuthFrame({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="auth" id="main">
      <p className="brand">Agent Governance</p>
      <h1>{title}</h1>
      {children}
    </main>
  );
}
