import type { StatsSeries } from '@sluice/admin/api';

/** The stored series a range reads: minute roll-ups are kept 6 hours, hour roll-ups 7 days. */
export type RangeQuery = { minutes: number } | { hours: number };

export interface TimeRange {
  id: 'live' | '1h' | '24h' | '7d';
  /** The picker's label. */
  label: string;
  /** "over the last hour, per minute": completes a sentence about the chart. */
  description: string;
  /** null: the last five minutes per second, from the live stream. */
  query: RangeQuery | null;
}

export const TIME_RANGES: readonly TimeRange[] = [
  {
    id: 'live',
    label: '5 min',
    description: 'over the last five minutes, per second',
    query: null,
  },
  { id: '1h', label: '1 h', description: 'over the last hour, per minute', query: { minutes: 60 } },
  {
    id: '24h',
    label: '24 h',
    description: 'over the last 24 hours, per hour',
    query: { hours: 24 },
  },
  { id: '7d', label: '7 d', description: 'over the last 7 days, per hour', query: { hours: 168 } },
];

export const LIVE_RANGE = TIME_RANGES[0] as TimeRange;

export type Resolution = StatsSeries['resolution'];

export const RESOLUTION_SECONDS: Record<Resolution, number> = {
  second: 1,
  minute: 60,
  hour: 3600,
};
