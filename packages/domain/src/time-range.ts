import { AppError } from './errors.js';

export interface TimeRange {
  from: Date;
  to: Date;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;
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
 * A bound as a time. The date-time format admits text that names no storable instant —
 * a leap second, an hour-only offset, year 0000 — so that is refused here, not by the database.
 */
function instant(field: 'from' | 'to', text: string, offsetMs: number): Date {
  const time = Date.parse(text) + offsetMs;
  if (!(time >= EARLIEST && time <= LATEST)) {
    throw invalidBound(field, 'must be a time between years 0001 and 9999', `${field} is not a valid time`);
  }
  return new Date(time);
}

const invalidBound = (field: 'from' | 'to', reason: string, message: string) =>
  new AppError('validation_error', message, { fields: [{ field, message: reason }] });

/** `YYYY-MM-DD` of a time, as export file names show it. */
export const dayOf = (date: Date) => date.toISOString().slice(0, 10);
