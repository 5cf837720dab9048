import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ErrorNotice } from '../../ui/ErrorNotice';

/**
 * A settings card whose form appears only once the stored values have loaded: a form shown
 * earlier would take what the reader typed and then overwrite it with the values arriving.
 */
export function SettingsCard<T>({
  title,
  stored,
  children,
}: {
  title: string;
  stored: UseQueryResult<T>;
  children: (data: T) => ReactNode;
}) {
  return (
    <div className="card">
      <h2>{title}</h2>
      <ErrorNotice error={stored.error} />
      {stored.isPending ? <p className="muted">Loading…</p> : stored.data !== undefined && children(stored.data)}
    </div>
  );
}
