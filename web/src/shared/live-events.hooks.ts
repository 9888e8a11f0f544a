import type { AdminEventMap, InstanceList, StatsPoint } from '@sluice/admin/api';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, EVENTS_URL } from '../api/client';
import { queryKeys } from '../api/query-keys';

/** How much history the charts show, in seconds. */
export const WINDOW_SECONDS = 300;
/** The 5-minute history's cache entry, which the stream's points extend. */
const LIVE_KEY = queryKeys.stats(WINDOW_SECONDS);

export type StreamState = 'connecting' | 'live' | 'reconnecting';

export interface LiveEvents {
  points: StatsPoint[];
  instances: InstanceList | null;
  stream: StreamState;
  /** The stream's last `unavailable` notice, cleared by the next figures. */
  unavailable: string | null;
}

/**
 * One point per second, oldest first, of the WINDOW_SECONDS before the newest: a point older
 * than that goes, however few came since (a burst from before a gap is not drawn as recent).
 */
export function mergePoints(current: StatsPoint[], incoming: StatsPoint[]): StatsPoint[] {
  const byTime = new Map(current.map((point) => [point.at, point]));
  for (const point of incoming) byTime.set(point.at, point);
  const merged = [...byTime.values()].sort((a, b) => a.at.localeCompare(b.at));
  const newest = merged.at(-1);
  if (newest === undefined) return merged;
  const since = Date.parse(newest.at) - (WINDOW_SECONDS - 1) * 1000;
  return merged.filter((point) => Date.parse(point.at) >= since);
}

/**
 * The last five minutes from GET /stats, then every settled second from the SSE stream, and the
 * instances as the stream reports them every two seconds. EventSource reconnects by itself.
 * The points live in the query cache, shared by every screen that charts them: a screen opened
 * again reads the five minutes afresh and merges what the stream had brought, so no second is
 * lost to a change of screen.
 */
type StatsAnswer = Awaited<ReturnType<typeof api.stats>>;

export function useLiveEvents(): LiveEvents {
  const queryClient = useQueryClient();
  const key = LIVE_KEY;
  const history = useQuery({
    queryKey: key,
    queryFn: async () => {
      const fetched = await api.stats({ seconds: WINDOW_SECONDS });
      const cached = queryClient.getQueryData<StatsAnswer>(key)?.points ?? [];
      return { ...fetched, points: mergePoints(cached, fetched.points) };
    },
    refetchOnMount: 'always',
  });
  const firstInstances = useQuery({ queryKey: queryKeys.instances, queryFn: api.instances });
  const points = history.data?.points ?? [];
  const [instances, setInstances] = useState<InstanceList | null>(null);
  const [stream, setStream] = useState<StreamState>('connecting');
  const [unavailable, setUnavailable] = useState<string | null>(null);

  useEffect(() => {
    const source = new EventSource(EVENTS_URL);
    const read = <K extends keyof AdminEventMap>(
      type: K,
      handle: (data: AdminEventMap[K]) => void,
    ) =>
      source.addEventListener(type, (event) =>
        handle(JSON.parse((event as MessageEvent<string>).data) as AdminEventMap[K]),
      );
    source.onopen = () => setStream('live');
    source.onerror = () => setStream('reconnecting');
    read('stats', (point) => {
      setUnavailable(null);
      queryClient.setQueryData(LIVE_KEY, (current: StatsAnswer | undefined) =>
        current === undefined
          ? { resolution: 'second' as const, points: [point] }
          : { ...current, points: mergePoints(current.points, [point]) },
      );
    });
    read('instances', (list) => {
      setUnavailable(null);
      setInstances(list);
    });
    read('unavailable', ({ message }) => setUnavailable(message));
    return () => source.close();
  }, [queryClient]);

  return { points, instances: instances ?? firstInstances.data ?? null, stream, unavailable };
}
