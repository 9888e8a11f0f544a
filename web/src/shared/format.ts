import { durationText } from '@sluice/nest/simulator';
/** "90 ms", "12 s", "5 min", "2 h 30 min", "3 d 4 h": as the library writes a 429's wait. */
export const formatDuration = durationText;

const DATE_TIME = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  timeZoneName: 'short',
});

/**
 * A server time (ISO 8601) in the reader's locale and zone, the zone named: every date the panel
 * shows is written this one way.
 */
export function formatTime(iso: string | null | undefined): string {
  if (iso == null) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : DATE_TIME.format(date);
}

/** `<input type="datetime-local">`'s value (local time) as ISO 8601, or undefined when empty. */
export function localInputToIso(value: string): string | undefined {
  if (value === '') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}

/** An ISO 8601 time as a `datetime-local` input's value, in local time. */
export function isoToLocalInput(iso: string | null | undefined): string {
  if (iso == null) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}
