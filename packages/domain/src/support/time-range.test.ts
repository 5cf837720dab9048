import { describe, expect, it } from 'vitest';
import { AppError } from './errors.js';
import { dayOf, instantOf, timeRange } from './time-range.js';

const at = (iso: string) => new Date(iso);

describe('timeRange', () => {
  it('reads a date `from` as the first millisecond of that day and a date `to` as the last (UTC)', () => {
    expect(timeRange({ from: '2026-01-01', to: '2026-01-31' })).toEqual({
      from: at('2026-01-01T00:00:00.000Z'),
      to: at('2026-01-31T23:59:59.999Z'),
    });
  });

  it('covers one whole day when from and to are the same date', () => {
    expect(timeRange({ from: '2026-03-15', to: '2026-03-15' })).toEqual({
      from: at('2026-03-15T00:00:00.000Z'),
      to: at('2026-03-15T23:59:59.999Z'),
    });
  });

  it.each([
    ['a leap day', '2024-02-29', '2024-02-29T23:59:59.999Z'],
    ['the last day of a year', '2025-12-31', '2025-12-31T23:59:59.999Z'],
    ['the last day of a 30-day month', '2026-04-30', '2026-04-30T23:59:59.999Z'],
  ])('ends a date `to` on %s within that day', (_label, to, end) => {
    expect(timeRange({ from: '2020-01-01', to }).to).toEqual(at(end));
  });

  it('keeps date-times exactly, milliseconds and offsets included', () => {
    expect(timeRange({ from: '2026-03-04T05:06:07.089Z', to: '2026-03-04T05:06:07.090Z' })).toEqual({
      from: at('2026-03-04T05:06:07.089Z'),
      to: at('2026-03-04T05:06:07.090Z'),
    });
    expect(timeRange({ from: '2026-03-04T05:06:07+02:00', to: '2026-03-04T23:30:00-05:00' })).toEqual({
      from: at('2026-03-04T03:06:07.000Z'),
      to: at('2026-03-05T04:30:00.000Z'),
    });
  });

  it('does not stretch a date-time `to` at midnight to the end of its day', () => {
    expect(timeRange({ from: '2026-01-01', to: '2026-01-31T00:00:00.000Z' }).to).toEqual(at('2026-01-31T00:00:00.000Z'));
  });

  it('accepts from equal to to, and a date-time from inside a date to', () => {
    const instant = '2026-06-01T12:00:00.000Z';
    expect(timeRange({ from: instant, to: instant })).toEqual({ from: at(instant), to: at(instant) });
    // Valid only because a date `to` means the end of that day.
    expect(timeRange({ from: '2026-06-01T23:59:59.999Z', to: '2026-06-01' }).to).toEqual(at('2026-06-01T23:59:59.999Z'));
  });

  it.each([
    ['dates', '2026-02-01', '2026-01-31'],
    ['date-times one millisecond apart', '2026-01-31T10:00:00.001Z', '2026-01-31T10:00:00.000Z'],
    ['a date-time after a date-time `to` of the same day', '2026-01-31T12:00:00.000Z', '2026-01-31T11:59:59.999Z'],
    ['a date from after a date-time to on the day before', '2026-02-01', '2026-01-31T23:59:59.999Z'],
  ])('refuses from after to (%s) with validation_error', (_label, from, to) => {
    let thrown: unknown;
    try {
      timeRange({ from, to });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect(thrown).toMatchObject({
      code: 'validation_error',
      status: 400,
      details: { fields: [{ field: 'from', message: expect.any(String) }] },
    });
  });

  it.each([
    ['a leap second', { to: '2026-12-31T23:59:60Z' }, 'to'],
    ['an hour-only offset', { from: '2026-01-01T00:00:00+02' }, 'from'],
    ['year 0000', { from: '0000-01-01' }, 'from'],
    ['a date-time past 9999', { to: '+010000-01-01T00:00:00Z' }, 'to'],
    ['a day February lacks', { from: '2026-02-30' }, 'from'],
  ])('refuses a bound that names no storable time (%s), naming the field', (_label, bounds, field) => {
    expect(() => timeRange(bounds)).toThrow(AppError);
    expect(() => timeRange(bounds)).toThrow(
      expect.objectContaining({ code: 'validation_error', details: { fields: [{ field, message: expect.any(String) }] } }),
    );
  });

  it('accepts the first and last days PostgreSQL and ISO 8601 share', () => {
    expect(timeRange({ from: '0001-01-01', to: '9999-12-31' })).toEqual({
      from: at('0001-01-01T00:00:00.000Z'),
      to: at('9999-12-31T23:59:59.999Z'),
    });
  });

  it('returns only the bounds given', () => {
    expect(timeRange({})).toEqual({});
    expect(timeRange({ from: '2026-01-01' })).toEqual({ from: at('2026-01-01T00:00:00.000Z') });
    expect(timeRange({ to: '2026-01-01' })).toEqual({ to: at('2026-01-01T23:59:59.999Z') });
    expect(timeRange({ from: undefined, to: '2026-01-01T08:00:00Z' })).toEqual({ to: at('2026-01-01T08:00:00.000Z') });
  });
});

describe('instantOf', () => {
  it.each([
    ['UTC', '2026-03-04T05:06:07Z', '2026-03-04T05:06:07.000Z'],
    ['lower-case separators', '2026-03-04t05:06:07.5z', '2026-03-04T05:06:07.500Z'],
    ['an offset', '2026-03-04T05:06:07+05:30', '2026-03-03T23:36:07.000Z'],
    ['the widest offset', '2026-03-04T05:06:07-23:59', '2026-03-05T05:05:07.000Z'],
    ['digits past milliseconds, dropped as Date drops them', '2026-03-04T05:06:07.123999Z', '2026-03-04T05:06:07.123Z'],
    ['a leap day', '2024-02-29T12:00:00Z', '2024-02-29T12:00:00.000Z'],
    ['a year below 100, not read as 19xx', '0050-06-01T00:00:00Z', '0050-06-01T00:00:00.000Z'],
    ['the first instant of year 0001', '0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
    ['the last instant of year 9999', '9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
  ])('reads %s', (_label, text, iso) => {
    expect(instantOf(text)?.toISOString()).toBe(iso);
  });

  it.each([
    ['a leap second', '2026-12-31T23:59:60Z'],
    ['hour 24', '2026-12-31T24:00:00Z'],
    ['minute 60', '2026-12-31T23:60:00Z'],
    ['30 February', '2026-02-30T00:00:00Z'],
    ['29 February of a common year', '2025-02-29T00:00:00Z'],
    ['31 April', '2026-04-31T00:00:00Z'],
    ['month 13', '2026-13-01T00:00:00Z'],
    ['an hour-only offset', '2026-01-01T00:00:00+01'],
    ['an offset of 24 hours', '2026-01-01T00:00:00+24:00'],
    ['no offset', '2026-01-01T00:00:00'],
    ['no seconds', '2026-01-01T00:00Z'],
    ['a date alone', '2026-01-01'],
    ['year 0000', '0000-06-01T00:00:00Z'],
    ['year 10000', '10000-01-01T00:00:00Z'],
    ['an expanded year', '+010000-01-01T00:00:00Z'],
    ['an offset that carries it before year 0001', '0001-01-01T00:30:00+01:00'],
    ['an offset that carries it past year 9999', '9999-12-31T23:30:00-01:00'],
    ['trailing text', '2026-01-01T00:00:00Z '],
  ])('refuses %s', (_label, text) => {
    expect(instantOf(text)).toBeNull();
  });
});

describe('dayOf', () => {
  it('names the UTC calendar day as YYYY-MM-DD', () => {
    expect(dayOf(at('2026-01-31T00:00:00.000Z'))).toBe('2026-01-31');
    expect(dayOf(at('2026-01-31T23:59:59.999Z'))).toBe('2026-01-31');
    expect(dayOf(at('2026-02-01T00:00:00.000Z'))).toBe('2026-02-01');
    expect(dayOf(at('0999-03-04T00:00:00.000Z'))).toBe('0999-03-04');
  });

  it('uses UTC, not the offset the time was written with', () => {
    expect(dayOf(at('2026-01-31T23:30:00-05:00'))).toBe('2026-02-01');
    expect(dayOf(at('2026-02-01T01:00:00+02:00'))).toBe('2026-01-31');
  });

  it('names the days a date range was given with', () => {
    const range = timeRange({ from: '2026-01-01', to: '2026-01-31' });
    expect([dayOf(range.from), dayOf(range.to)]).toEqual(['2026-01-01', '2026-01-31']);
  });
});
