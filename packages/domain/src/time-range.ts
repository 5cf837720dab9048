import { AppError } from './errors.js';

export interface TimeRange {
  from: Date;
  to: Date;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/**
 * The inclusive range that query bounds name. Each bound is an ISO 8601 date-time, or a
 * calendar date (UTC): a date `from` starts at that day's first millisecond and a date `to`
 * ends at its last, so `from=2026-01-01&to=2026-01-31` is all of January.
 */
export function timeRange(bounds: { from: string; to: string }): TimeRange;
export function timeRange(bounds: { from?: string | undefined; to?: string | undefined }): Partial<TimeRange>;
export function timeRange(bounds: { from?: string | undefined; to?: string | undefined }): Partial<TimeRange> {
  const from = bounds.from === undefined ? undefined : new Date(bounds.from);
  const to = bounds.to === undefined ? undefined : new Date(new Date(bounds.to).getTime() + (DATE_ONLY.test(bounds.to) ? DAY_MS - 1 : 0));
  if (from && to && from > to) {
    throw new AppError('validation_error', 'from must not be after to', { fields: [{ field: 'from', message: 'must not be after to' }] });
  }
  return { ...(from ? { from } : {}), ...(to ? { to } : {}) };
}

/** `YYYY-MM-DD` of a time, as export file names show it. */
export const dayOf = (date: Date) => date.toISOString().slice(0, 10);
