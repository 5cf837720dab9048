import { AppError } from './errors.js';

export interface TimeRange {
  from: Date;
  to: Date;
}

/** The range with its end held at `now`: what is read over it never reaches past that moment. */
export const heldAt = (range: TimeRange, now: Date): TimeRange => ({ from: range.from, to: range.to < now ? range.to : now });

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
/** Years 0001–9999: what both ISO 8601 text and a PostgreSQL timestamptz hold. */
const EARLIEST = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * The inclusive range that query bounds name. Each bound is an ISO 8601 date-time, or a
 * calendar date (UTC): a date `from` starts at that day's first millisecond and a date `to`
 * ends at its last, so `from=2026-01-01&to=2026-01-31` is all of January.
 */
export function timeRange(bounds: { from: string; to: string }): TimeRange;
export function timeRange(bounds: { from?: string | undefined; to?: string | undefined }): Partial<TimeRange>;
export function timeRange(bounds: { from?: string | undefined; to?: string | undefined }): Partial<TimeRange> {
  const from = bounds.from === undefined ? undefined : instant('from', bounds.from, 0);
  const to = bounds.to === undefined ? undefined : instant('to', bounds.to, DATE_ONLY.test(bounds.to) ? DAY_MS - 1 : 0);
  if (from && to && from > to) {
    throw invalidBound('from', 'must not be after to', 'from must not be after to');
  }
  return { ...(from ? { from } : {}), ...(to ? { to } : {}) };
}

/**
 * A bound as a time. Text that names no storable instant — a leap second, an hour-only
 * offset, year 0000, 30 February — is refused here, whatever the caller's schema let through.
 */
function instant(field: 'from' | 'to', text: string, offsetMs: number): Date {
  const time = instantOf(DATE_ONLY.test(text) ? `${text}T00:00:00Z` : text);
  if (time === null) {
    throw invalidBound(field, 'must name a time that exists, between years 0001 and 9999', `${field} is not a valid time`);
  }
  return new Date(time.getTime() + offsetMs);
}

/** RFC 3339 `date-time`: seconds required, an offset with minutes required, any fraction. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * The instant an RFC 3339 date-time names, or null when it names none: a day the calendar
 * lacks (30 February), hour 24, a leap second (`Date` has none), an offset beyond ±23:59, or a
 * time outside years 0001–9999 in UTC. `Date.parse` is laxer (it moves 30 February to
 * 2 March), so the fields are read here and must come back unchanged from `Date`.
 * Digits past milliseconds are dropped, as `Date` does.
 */
export function instantOf(text: string): Date | null {
  const match = DATE_TIME.exec(text);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const millis = Number((match[7] ?? '').padEnd(3, '0').slice(0, 3));
  const offsetHours = Number(match[9] ?? 0);
  const offsetMinutes = Number(match[10] ?? 0);
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return null;
  const local = new Date(0);
  // setUTCFullYear, not Date.UTC, which reads years 0–99 as 1900–1999.
  local.setUTCFullYear(year, month - 1, day);
  if (local.getUTCFullYear() !== year || local.getUTCMonth() !== month - 1 || local.getUTCDate() !== day) return null;
  local.setUTCHours(hour, minute, second, millis);
  const sign = match[8] === '-' ? -1 : 1;
  const time = local.getTime() - sign * (offsetHours * 60 + offsetMinutes) * 60_000;
  return time >= EARLIEST && time <= LATEST ? new Date(time) : null;
}

const invalidBound = (field: 'from' | 'to', reason: string, message: string) =>
  new AppError('validation_error', message, { fields: [{ field, message: reason }] });

/** `YYYY-MM-DD` of a time, as export file names show it. */
export const dayOf = (date: Date) => date.toISOString().slice(0, 10);
