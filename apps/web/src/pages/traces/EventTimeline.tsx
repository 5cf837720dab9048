import { Button, Disclosure, DisclosurePanel, Heading } from 'react-aria-components';
import { StatusBadge } from '../../ui/Badge';
import { Time } from '../../ui/Time';
import type { TraceEvent } from './queries';

/** A trace's events in chain order: who did what, when, and the hash that links each to the one before. */
export function EventTimeline({ events }: { events: readonly TraceEvent[] }) {
  return (
    <ol className="timeline" aria-label="Events">
      {events.map((event) => (
        <li key={event.id}>
          <div className="event-head">
            <strong>{event.event_type.replaceAll('_', ' ')}</strong>
            <StatusBadge value={event.status} />
            <span className="muted">
              {event.actor_type.replaceAll('_', ' ')}: {event.actor_name}
            </span>
            <Time value={event.timestamp} />
          </div>
          <div>{event.description}</div>
          <div className="muted">
            {event.policy_version !== null && <>policy version {event.policy_version} · </>}
            <span className="mono" title={event.integrity_hash ?? undefined}>
              {event.integrity_hash ? `${event.integrity_hash.slice(0, 19)}…` : 'no hash'}
            </span>
          </div>
          {event.metadata && Object.keys(event.metadata).length > 0 && (
            <Disclosure>
              <Heading level={3} className="disclosure-heading">
                <Button slot="trigger" className="button button-quiet">
                  Metadata
                </Button>
              </Heading>
              <DisclosurePanel>
                <pre className="json">{JSON.stringify(event.metadata, null, 2)}</pre>
              </DisclosurePanel>
            </Disclosure>
          )}
        </li>
      ))}
    </ol>
  );
}
