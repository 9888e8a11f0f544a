import type { StatsPoint } from '@sluice/admin/api';
import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { useLiveEvents, type LiveEvents } from './live-events.hooks';
import type { Resolution, TimeRange } from './time-range';

/** Stored ranges are read again once a minute: their newest point fills up as traffic comes. */
const RANGE_REFRESH_MS = 60_000;
const BLOCKED_REFRESH_MS = 5_000;

export interface Traffic {
  points: StatsPoint[];
  resolution: Resolution;
  /** The live stream: the last five minutes, the instances, the stream's state. */
  live: LiveEvents;
  /** Why a stored range could not be read, or null. */
  error: Error | null;
  loading: boolean;
}

/**
 * The decisions charted for a range: the live stream's seconds for the last five minutes, the
 * stored roll-ups (GET /stats) for 1 h, 24 h and 7 d. The stream stays open either way: it
 * also reports the instances.
 */
export function useTraffic(range: TimeRange, policy?: string): Traffic {
  const live = useLiveEvents();
  const stored = useQuery({
    queryKey: queryKeys.statsRange(range.id, policy),
    queryFn: () => api.stats({ ...range.query, ...(policy === undefined ? {} : { policy }) }),
    enabled: range.query !== null,
    refetchInterval: RANGE_REFRESH_MS,
  });
  if (range.query === null) {
    return { points: live.points, resolution: 'second', live, error: null, loading: false };
  }
  return {
    points: stored.data?.points ?? [],
    resolution: stored.data?.resolution ?? ('hours' in range.query ? 'hour' : 'minute'),
    live,
    error: stored.error,
    loading: stored.isPending,
  };
}

/** How many identifiers are blocked now (under `policy`, or any), read again every 5 s. */
export function useBlockedCount(policy?: string) {
  return useQuery({
    queryKey: queryKeys.blocked.count(policy),
    queryFn: async () =>
      (await api.blocked.list({ ...(policy === undefined ? {} : { policy }), limit: 1 })).total,
    refetchInterval: BLOCKED_REFRESH_MS,
  });
}
