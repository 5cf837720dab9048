import { useQuery } from '@tanstack/react-query';
import { Badge } from '../../ui/Badge';
import { fetchVerification, tracesKey } from './queries';

/** The verify endpoint's verdict on the trace's hash chain, recomputed by the service on each call. */
export function ChainBadge({ traceId, eventCount }: { traceId: string; eventCount: number }) {
  const verification = useQuery({
    // Keyed by the event count, so a chain that grew is verified again.
    queryKey: [...tracesKey, traceId, 'verify', eventCount],
    queryFn: () => fetchVerification(traceId),
  });
  if (verification.isPending) return <Badge>Verifying chain…</Badge>;
  if (verification.isError) return <Badge tone="warning">Chain not checked</Badge>;
  const { valid, event_count, first_invalid_event } = verification.data;
  return valid ? (
    <Badge tone="good">Chain verified ({event_count} events)</Badge>
  ) : (
    <Badge tone="danger">Chain broken{first_invalid_event ? ` at event ${first_invalid_event}` : ''}</Badge>
  );
}
