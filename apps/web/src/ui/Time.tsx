const absolute = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1_000],
];

/** "5 minutes ago" or "in 2 hours", from now. */
export function fromNow(iso: string, now = Date.now()): string {
  const difference = new Date(iso).getTime() - now;
  for (const [unit, size] of UNITS) {
    if (Math.abs(difference) >= size || unit === 'second') return relative.format(Math.round(difference / size), unit);
  }
  return '';
}

/** A timestamp as people read it, with the exact value in the element for machines and tooltips. */
export function Time({ value, relativeToNow = false }: { value: string | null | undefined; relativeToNow?: boolean }) {
  if (!value) return <span className="muted">—</span>;
  const date = new Date(value);
  return (
    <time dateTime={value} title={absolute.format(date)}>
      {relativeToNow ? fromNow(value) : absolute.format(date)}
    </time>
  );
}
