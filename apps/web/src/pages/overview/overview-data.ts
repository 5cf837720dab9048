import { OUTCOMES } from '../traces/outcomes';

export type Outcome = (typeof OUTCOMES)[number];
export const DAYS = 7;

export interface DayCounts {
  day: string;
  counts: Record<Outcome, number>;
}

const emptyCounts = () => Object.fromEntries(OUTCOMES.map((outcome) => [outcome, 0])) as Record<Outcome, number>;

/** The last seven UTC days, oldest first, as YYYY-MM-DD. */
export function lastDays(now: Date, days = DAYS): string[] {
  return Array.from({ length: days }, (_, i) => new Date(now.getTime() - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}

/** Traces started in the period, counted per day and outcome. */
export function countByDay(days: readonly string[], traces: readonly { started_at: string; final_outcome: string }[]): DayCounts[] {
  const byDay = new Map(days.map((day) => [day, emptyCounts()]));
  for (const trace of traces) {
    const counts = byDay.get(trace.started_at.slice(0, 10));
    if (counts && trace.final_outcome in counts) counts[trace.final_outcome as Outcome] += 1;
  }
  return days.map((day) => ({ day, counts: byDay.get(day)! }));
}

/** The median and 90th percentile of how long decided requests waited, in milliseconds (nearest rank). */
export function waitTimes(decided: readonly { requested_at: string; decided_at: string | null }[]): { median: number; p90: number } | null {
  const waits = decided
    .flatMap((a) => (a.decided_at ? [new Date(a.decided_at).getTime() - new Date(a.requested_at).getTime()] : []))
    .sort((x, y) => x - y);
  if (waits.length === 0) return null;
  const rank = (p: number) => waits[Math.min(waits.length - 1, Math.ceil(p * waits.length) - 1)]!;
  return { median: rank(0.5), p90: rank(0.9) };
}

export function duration(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}
