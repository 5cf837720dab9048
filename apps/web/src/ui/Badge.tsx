import type { ReactNode } from 'react';

export type BadgeTone = 'neutral' | 'good' | 'info' | 'warning' | 'danger';

export function Badge({ tone = 'neutral', children }: { tone?: BadgeTone; children: ReactNode }) {
  return <span className={`badge badge-${tone}`}>{children}</span>;
}

const TONES: Record<string, BadgeTone> = {
  // decisions and outcomes
  allow: 'good',
  executed: 'good',
  approved: 'good',
  completed_with_approval: 'good',
  delivered: 'good',
  active: 'good',
  approve: 'good',
  approval_required: 'warning',
  pending: 'warning',
  in_progress: 'info',
  retrying: 'warning',
  suspended: 'warning',
  deny: 'danger',
  denied: 'danger',
  blocked: 'danger',
  failed: 'danger',
  revoked: 'danger',
  expired: 'neutral',
  // a rule that never decides
  shadow: 'info',
  // risk
  low: 'good',
  medium: 'info',
  high: 'warning',
  critical: 'danger',
};

/** A status, decision or risk word in its colour, the word itself always shown. */
export function StatusBadge({ value }: { value: string }) {
  return <Badge tone={TONES[value] ?? 'neutral'}>{value.replaceAll('_', ' ')}</Badge>;
}
