import { describe, expect, it } from 'vitest';
import { isTimeZone, periodAt, type Calendar } from './calendar.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const period = (when: string, calendar: Calendar) => {
  const { start, end, next } = periodAt(at(when), calendar);
  return [iso(start), iso(end), iso(next)];
};
const cal = (unit: Calendar['unit'], timeZone: string, anchorDay: number | null = null) => ({
  unit,
  timeZone,
  anchorDay,
});

describe('calendar periods', () => {
  it('days in UTC start at midnight, and a boundary belongs to the period it starts', () => {
    expect(period('2026-11-27T23:59:59.999Z', cal('day', 'UTC'))).toEqual([
      '2026-11-27T00:00:00.000Z',
      '2026-11-28T00:00:00.000Z',
      '2026-11-29T00:00:00.000Z',
    ]);
    expect(period('2026-11-28T00:00:00.000Z', cal('day', 'UTC'))[0]).toBe(
      '2026-11-28T00:00:00.000Z',
    );
  });

  it('a day in Paris lasts 23 hours when summer time starts and 25 when it ends', () => {
    // 2026-03-29: 02:00 CET becomes 03:00 CEST; 2026-10-25: 03:00 CEST becomes 02:00 CET.
    const spring = periodAt(at('2026-03-29T12:00:00Z'), cal('day', 'Europe/Paris'));
    expect([iso(spring.start), (spring.end - spring.start) / 3_600_000]).toEqual([
      '2026-03-28T23:00:00.000Z',
      23,
    ]);
    const autumn = periodAt(at('2026-10-25T12:00:00Z'), cal('day', 'Europe/Paris'));
    expect([iso(autumn.start), (autumn.end - autumn.start) / 3_600_000]).toEqual([
      '2026-10-24T22:00:00.000Z',
      25,
    ]);
  });

  it('a day in New York changes offset on its own dates, not on Europe’s', () => {
    // 2026-03-08: 02:00 EST becomes 03:00 EDT; 2026-11-01: 02:00 EDT becomes 01:00 EST.
    expect(period('2026-03-08T15:00:00Z', cal('day', 'America/New_York'))).toEqual([
      '2026-03-08T05:00:00.000Z',
      '2026-03-09T04:00:00.000Z',
      '2026-03-10T04:00:00.000Z',
    ]);
    expect(period('2026-11-01T03:30:00Z', cal('day', 'America/New_York'))).toEqual([
      '2026-10-31T04:00:00.000Z',
      '2026-11-01T04:00:00.000Z',
      '2026-11-02T05:00:00.000Z',
    ]);
  });

  it('a day whose midnight is skipped starts when the clocks jump', () => {
    // Santiago moves to summer time at 24:00 on 2026-09-05: the 6th begins at 01:00 (-03).
    const { start } = periodAt(at('2026-09-06T12:00:00Z'), cal('day', 'America/Santiago'));
    expect(iso(start)).toBe('2026-09-06T04:00:00.000Z');
  });

  it('ISO weeks start on Monday, across a year end', () => {
    // 2027-01-01 is a Friday: its week began on Monday 2026-12-28.
    expect(period('2027-01-01T10:00:00Z', cal('week', 'UTC'))).toEqual([
      '2026-12-28T00:00:00.000Z',
      '2027-01-04T00:00:00.000Z',
      '2027-01-11T00:00:00.000Z',
    ]);
    // A Sunday belongs to the week of the Monday before it.
    expect(period('2026-11-29T23:00:00Z', cal('week', 'UTC'))[0]).toBe('2026-11-23T00:00:00.000Z');
  });

  it('months follow their lengths, leap February included', () => {
    expect(period('2028-02-29T23:59:59Z', cal('month', 'UTC'))).toEqual([
      '2028-02-01T00:00:00.000Z',
      '2028-03-01T00:00:00.000Z',
      '2028-04-01T00:00:00.000Z',
    ]);
    expect(period('2026-12-31T23:00:00Z', cal('month', 'Europe/Paris'))).toEqual([
      '2026-12-31T23:00:00.000Z',
      '2027-01-31T23:00:00.000Z',
      '2027-02-28T23:00:00.000Z',
    ]);
  });

  it('a month renewed on the 15th, and on the 31st in short months', () => {
    expect(period('2026-11-14T12:00:00Z', cal('month', 'UTC', 15))).toEqual([
      '2026-10-15T00:00:00.000Z',
      '2026-11-15T00:00:00.000Z',
      '2026-12-15T00:00:00.000Z',
    ]);
    // Anchored on the 31st: February's period starts on its last day.
    expect(period('2027-02-28T06:00:00Z', cal('month', 'UTC', 31))).toEqual([
      '2027-02-28T00:00:00.000Z',
      '2027-03-31T00:00:00.000Z',
      '2027-04-30T00:00:00.000Z',
    ]);
    expect(period('2027-02-27T06:00:00Z', cal('month', 'UTC', 31))[0]).toBe(
      '2027-01-31T00:00:00.000Z',
    );
  });

  it('years start on 1 January in the zone', () => {
    expect(period('2027-01-01T00:30:00Z', cal('year', 'Asia/Tokyo'))).toEqual([
      '2026-12-31T15:00:00.000Z',
      '2027-12-31T15:00:00.000Z',
      '2028-12-31T15:00:00.000Z',
    ]);
  });

  it('knows the zones the runtime knows, and no others', () => {
    expect(['UTC', 'Europe/Paris', 'America/New_York'].map(isTimeZone)).toEqual([true, true, true]);
    expect(['Mars/Olympus', '', 'Europe/Paris; DROP'].map(isTimeZone)).toEqual([
      false,
      false,
      false,
    ]);
  });
});
