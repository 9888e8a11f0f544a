/** The calendar units a quota's period can be (docs/algorithms.md, "Calendar periods"). */
export const CALENDAR_UNITS = ['day', 'week', 'month', 'year'] as const;
/** One of {@link CALENDAR_UNITS}: a week is an ISO week, from Monday. */
export type CalendarUnit = (typeof CALENDAR_UNITS)[number];

/** A calendar period as a policy states it: its unit, in a time zone, renewed on a day. */
export interface Calendar {
  /** The period counted. */
  unit: CalendarUnit;
  /** An IANA time zone, e.g. `Europe/Paris`; the zone data is the runtime's own (Intl). */
  timeZone: string;
  /**
   * For `month`: the day of the month each period starts on (1–31; a month shorter than it
   * starts on its last day). Null for the other units, and for `month` means the 1st.
   */
  anchorDay: number | null;
}

/** Three consecutive boundaries, epoch ms: the period holding a time, its end, and the next end. */
export interface CalendarPeriod {
  /** When the period holding the time began. */
  start: number;
  /** When it ends: the next period begins. */
  end: number;
  /** When the next period ends. */
  next: number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * The longest a period of each unit lasts: a day that leaves summer time has 25 hours, a leap
 * year 366 days. What a calendar policy states as its period.
 */
export const LONGEST_PERIOD_MS: Record<CalendarUnit, number> = {
  day: DAY_MS + HOUR_MS,
  week: 7 * DAY_MS + HOUR_MS,
  month: 31 * DAY_MS + HOUR_MS,
  year: 366 * DAY_MS + HOUR_MS,
};

/**
 * A unit's usual length, what RateLimit-Policy announces as its window (`w`): a day of 24
 * hours, a month of 30 days, a year of 365. Retry-After and the reset count to the real boundary.
 */
export const USUAL_PERIOD_MS: Record<CalendarUnit, number> = {
  day: DAY_MS,
  week: 7 * DAY_MS,
  month: 30 * DAY_MS,
  year: 365 * DAY_MS,
};

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let known = formatters.get(timeZone);
  if (known === undefined) {
    known = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, known);
  }
  return known;
}

/** Whether the runtime knows the time zone (an IANA name such as `America/New_York`, or UTC). */
export function isTimeZone(timeZone: string): boolean {
  if (timeZone.length === 0 || timeZone.length > 64) return false;
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

interface LocalDate {
  year: number;
  /** 1–12 */
  month: number;
  day: number;
}

/** The wall-clock time in the zone at `ms`, read as if it were UTC: epoch ms. */
function wallClock(ms: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(ms)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return Date.UTC(
    parts.year as number,
    (parts.month as number) - 1,
    parts.day,
    parts.hour,
    parts.minute,
    parts.second,
  );
}

function localDate(ms: number, timeZone: string): LocalDate {
  const wall = new Date(wallClock(ms, timeZone));
  return { year: wall.getUTCFullYear(), month: wall.getUTCMonth() + 1, day: wall.getUTCDate() };
}

/** The date `days` after `date` (negative: before), month and year lengths handled by Date. */
function addDays(date: LocalDate, days: number): LocalDate {
  const moved = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: moved.getUTCFullYear(), month: moved.getUTCMonth() + 1, day: moved.getUTCDate() };
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * The first instant of the local date in the zone: its midnight, or when midnight is skipped by a
 * change to summer time, the moment the day begins. Two candidates, one per offset in force
 * around midnight; the earlier that falls on the date is its start.
 */
function startOfDay(date: LocalDate, timeZone: string): number {
  const midnightAsUtc = Date.UTC(date.year, date.month - 1, date.day);
  const first = midnightAsUtc - (wallClock(midnightAsUtc, timeZone) - midnightAsUtc);
  const second = midnightAsUtc - (wallClock(first, timeZone) - first);
  const onDate = [first, second].filter((candidate) => {
    const local = localDate(candidate, timeZone);
    return local.year === date.year && local.month === date.month && local.day === date.day;
  });
  return onDate.length === 0 ? Math.max(first, second) : Math.min(...onDate);
}

/** The day a `month` period starts on in a given month: the anchor, or the month's last day. */
function anchorIn(year: number, month: number, anchorDay: number): LocalDate {
  return { year, month, day: Math.min(anchorDay, daysInMonth(year, month)) };
}

function monthAfter(date: LocalDate, months: number): { year: number; month: number } {
  const index = date.year * 12 + (date.month - 1) + months;
  return { year: Math.floor(index / 12), month: (index % 12) + 1 };
}

/** The first day of the period holding `today`, and the first days of the two after it. */
function periodDays(today: LocalDate, calendar: Calendar): [LocalDate, LocalDate, LocalDate] {
  switch (calendar.unit) {
    case 'day':
      return [today, addDays(today, 1), addDays(today, 2)];
    case 'week': {
      // ISO weeks start on Monday: getUTCDay() is 0 on Sunday.
      const weekday = new Date(Date.UTC(today.year, today.month - 1, today.day)).getUTCDay();
      const monday = addDays(today, -((weekday + 6) % 7));
      return [monday, addDays(monday, 7), addDays(monday, 14)];
    }
    case 'month': {
      const anchorDay = calendar.anchorDay ?? 1;
      const thisMonth = anchorIn(today.year, today.month, anchorDay);
      const first = today.day >= thisMonth.day ? 0 : -1;
      const [start, end, next] = [first, first + 1, first + 2].map((months) => {
        const { year, month } = monthAfter(today, months);
        return anchorIn(year, month, anchorDay);
      });
      return [start as LocalDate, end as LocalDate, next as LocalDate];
    }
    case 'year':
      return [
        { year: today.year, month: 1, day: 1 },
        { year: today.year + 1, month: 1, day: 1 },
        { year: today.year + 2, month: 1, day: 1 },
      ];
  }
}

/** The period of the calendar holding `atMs` (epoch ms), with its end and the next one's. */
export function periodAt(atMs: number, calendar: Calendar): CalendarPeriod {
  const days = periodDays(localDate(atMs, calendar.timeZone), calendar);
  const [start, end, next] = days.map((day) => startOfDay(day, calendar.timeZone));
  return { start: start as number, end: end as number, next: next as number };
}
