import { describe, expect, it } from 'vitest';
import { countByDay, lastDays, waitTimes } from './overview-data';

describe('overview figures', () => {
  it('names the last seven UTC days, oldest first', () => {
    expect(lastDays(new Date('2026-11-24T00:30:00Z'))).toEqual([
      '2026-11-18',
      '2026-11-19',
      '2026-11-20',
      '2026-11-21',
      '2026-11-22',
      '2026-11-23',
      '2026-11-24',
    ]);
  });

  it('counts traces per day and outcome, ignoring days outside the period', () => {
    const days = ['2026-11-23', '2026-11-24'];
    const counted = countByDay(days, [
      { started_at: '2026-11-24T10:00:00Z', final_outcome: 'denied' },
      { started_at: '2026-11-24T11:00:00Z', final_outcome: 'denied' },
      { started_at: '2026-11-23T09:00:00Z', final_outcome: 'executed' },
      { started_at: '2026-11-01T09:00:00Z', final_outcome: 'executed' },
    ]);
    expect(counted.map(({ day, counts }) => [day, counts.denied, counts.executed])).toEqual([
      ['2026-11-23', 0, 1],
      ['2026-11-24', 2, 0],
    ]);
  });

  it('takes the median and 90th percentile wait by nearest rank, skipping undecided requests', () => {
    const at = (minutes: number) => new Date(Date.UTC(2026, 10, 24, 0, minutes)).toISOString();
    const decided = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((m) => ({ requested_at: at(0), decided_at: at(m) }));
    expect(waitTimes([...decided, { requested_at: at(0), decided_at: null }])).toEqual({ median: 5 * 60_000, p90: 9 * 60_000 });
    expect(waitTimes([])).toBeNull();
  });
});
