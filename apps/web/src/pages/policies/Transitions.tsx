import { Link } from 'react-router';
import { StatusBadge } from '../../ui/Badge';

/** A decision as recorded, and the one a rule would have made instead. */
export function Transition({ from, to }: { from: string; to: string }) {
  return (
    <>
      <StatusBadge value={from} /> → <StatusBadge value={to} />
    </>
  );
}

/** Links to a few traces, each named by its full id for screen readers and shown by its first characters. */
export function TraceLinks({ traceIds }: { traceIds: readonly string[] }) {
  return (
    <ul className="plain">
      {traceIds.map((traceId) => (
        <li key={traceId}>
          <Link className="mono" to={`/traces/${traceId}`} aria-label={`Trace ${traceId}`}>
            {traceId.slice(0, 8)}
          </Link>
        </li>
      ))}
    </ul>
  );
}
