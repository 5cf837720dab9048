import { CheckboxField } from '../../ui/choices';
import { EVENTS, type WebhookEvent } from './events';

/** The event types an endpoint subscribes to, one checkbox each. */
export function EventChoice({
  value,
  onChange,
  error,
}: {
  value: WebhookEvent[];
  onChange: (events: WebhookEvent[]) => void;
  error?: string | undefined;
}) {
  return (
    <fieldset className="events">
      <legend>Events</legend>
      {EVENTS.map((event) => (
        <CheckboxField
          key={event}
          label={event}
          value={value.includes(event)}
          onChange={(on) => onChange(on ? [...value, event] : value.filter((e) => e !== event))}
        />
      ))}
      {error && <p className="field-error">{error}</p>}
    </fieldset>
  );
}
