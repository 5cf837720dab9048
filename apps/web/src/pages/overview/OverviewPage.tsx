import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { Link } from 'react-router';
import { usePendingCount } from '../../ui/Layout';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { PageHeader } from '../../ui/PageHeader';
import { OUTCOMES } from '../traces/outcomes';
import { countByDay, DAYS, duration, lastDays, waitTimes } from './overview-data';
import { fetchDecided, fetchRecentTraces } from './overview-queries';

const DecisionsChart = lazy(() => import('./DecisionsChart'));

export function OverviewPage() {
  const pending = usePendingCount();
  const days = lastDays(new Date());
  const recent = useQuery({
    queryKey: ['traces', 'overview', days[0]],
    queryFn: () => fetchRecentTraces(`${days[0]}T00:00:00.000Z`),
    refetchInterval: 60_000,
  });
  const decided = useQuery({ queryKey: ['approvals', 'decided'], queryFn: fetchDecided, refetchInterval: 60_000 });
  const perDay = recent.data ? countByDay(days, recent.data.traces) : [];
  const shown = OUTCOMES.filter((outcome) => perDay.some(({ counts }) => counts[outcome] > 0));
  const waits = decided.data ? waitTimes(decided.data) : null;

  return (
    <section>
      <PageHeader title="Overview" />
      <div className="grid">
        <div className="card">
          <h2>Waiting for a decision</h2>
          <p className="figure">
            <Link to="/approvals">{pending.data ? `${pending.data.count} pending` : '…'}</Link>
          </p>
        </div>
        <div className="card">
          <h2>How long approvals wait</h2>
          {waits ? (
            <dl className="facts">
              <dt>Median</dt>
              <dd>{duration(waits.median)}</dd>
              <dt>90th percentile</dt>
              <dd>{duration(waits.p90)}</dd>
            </dl>
          ) : (
            <p className="muted">No decided requests yet.</p>
          )}
        </div>
      </div>
      <ErrorNotice error={recent.error ?? decided.error ?? pending.error} />
      <h2>Decisions in the last {DAYS} days</h2>
      {recent.data && recent.data.total === 0 ? (
        <div className="notice notice-info">
          No evaluations yet. Register an agent, give it a policy rule, and have its runtime call <code>POST /api/v1/evaluate</code> with
          the API key from sign-up; the <a href="/docs">API reference</a> shows how.
        </div>
      ) : recent.data ? (
        <>
          <div
            className="card"
            role="img"
            aria-label={`Stacked bars of decisions per day by outcome over the last ${DAYS} days; the table below has the numbers.`}
          >
            <Suspense fallback={<p className="muted">Loading chart…</p>}>
              <DecisionsChart days={perDay} outcomes={shown} />
            </Suspense>
          </div>
          {recent.data.total > recent.data.traces.length && (
            <p className="muted">
              Counted from the {recent.data.traces.length} most recent of {recent.data.total} traces.
            </p>
          )}
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Decisions per day by outcome</caption>
              <thead>
                <tr>
                  <th scope="col">Day</th>
                  {shown.map((outcome) => (
                    <th scope="col" key={outcome}>
                      {outcome.replaceAll('_', ' ')}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {perDay.map(({ day, counts }) => (
                  <tr key={day}>
                    <th scope="row">{day}</th>
                    {shown.map((outcome) => (
                      <td key={outcome}>{counts[outcome]}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : (
        <p className="muted">Loading…</p>
      )}
    </section>
  );
}
