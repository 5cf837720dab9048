import type { Delegation } from './queries';

/**
 * The reviewers `userId` may vote for at `now`: delegators of a delegation to them that has
 * started, not ended and not been revoked (the list asked for leaves out ended and revoked
 * ones, but not those still to come). One entry per delegator, however many delegations.
 */
export function delegatorsFor(delegations: readonly Delegation[], userId: string, now: Date): Delegation['delegator'][] {
  const inForce = delegations.filter(
    (delegation) =>
      delegation.delegate.id === userId &&
      delegation.revoked_at === null &&
      new Date(delegation.starts_at) <= now &&
      now < new Date(delegation.ends_at),
  );
  return [...new Map(inForce.map((delegation) => [delegation.delegator.id, delegation.delegator])).values()];
}

/** The last moment of a calendar day (`YYYY-MM-DD`, as a date input gives it) in the browser's time zone, as ISO 8601. */
export function endOfDay(day: string): string {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  return new Date(year, month - 1, date, 23, 59, 59, 999).toISOString();
}
