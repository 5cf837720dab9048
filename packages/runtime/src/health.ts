import type { Deps } from '@agov/domain';

/** What can be wrong while the process still serves: each is a choice made in createRuntime. */
export type DegradedPart = 'database' | 'rate_limit_counters';

export type Health = { status: 'ok' } | { status: 'degraded'; degraded: DegradedPart[] };

/**
 * The state of this process's infrastructure, for load balancer probes: whether the database
 * answers a trivial statement now (requests that need it get 503 until it does), and whether
 * the rate-limit counters are in process memory because Redis is unreachable (every request
 * still served). It lives here, not in the domain, because it asks about the adapters the
 * runtime chose, not about any rule of the business.
 *
 * A failed statement is reported to `databaseAvailability`, which tells an outage once; an
 * error that is not the database being away is a defect, handed to `defect` to be logged,
 * and the database counts as degraded all the same.
 */
export async function checkHealth(
  deps: Pick<Deps, 'database' | 'databaseAvailability' | 'rateLimits'>,
  defect: (error: unknown) => void,
): Promise<Health> {
  const degraded: DegradedPart[] = [];
  try {
    await deps.database.rows('select 1');
  } catch (error) {
    if (!deps.databaseAvailability.report(error)) defect(error);
    degraded.push('database');
  }
  if (deps.rateLimits.counters.degraded) degraded.push('rate_limit_counters');
  return degraded.length === 0 ? { status: 'ok' } : { status: 'degraded', degraded };
}
