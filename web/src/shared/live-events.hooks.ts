import type { AdminEventMap, InstanceList, StatsPoint } from '@sluice/admin/api';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, EVENTS_URL } from '../api/client';
import { queryKeys } from '../api/query-keys';

/** How much history the charts show, in seconds. */
export const WINDOW_SECONDS = 300;

export type StreamState = 'connecting' | 'live' | 'reconnecting';

export interface LiveEvents {
  points: StatsPoint[];
  instances: InstanceList | null;
  stream: StreamState;
  /** The stream's last `unavailable` notice, cleared by the next figures. */
  unavailable: string | null;
}

/** Keeps the newest WINDOW_SECONDS points, one per second, oldest first. */
export function mergePoints(current: StatsPoint[], incoming: StatsPoint[]): StatsPoint[] {
  const byTime = new Map(current.map((point) => [point.at, point]));
  for (const point of incoming) byTime.set(point.at, point);
  const merged = [...byTime.values()].sort((a, b) => a.at.localeCompare(b.at));
  return merged.slice(-WINDOW_SECONDS);
}

/**
 * The last five minutes from GET /stats, then every settled second from the SSE stream, and the
 * instances as the stream reports them every two seconds. EventSource reconnects by itself.
 */
export function useLiveEvents(): LiveEvents {
  const history = useQuery({
    queryKey: queryKeys.stats(WINDOW_SECONDS),
    queryFn: () => api.stats({ seconds: WINDOW_SECONDS }),
    staleTime: Infinity,
  });
  const firstInstances = useQuery({ queryKey: queryKeys.instances, queryFn: api.instances });
  const [points, setPoints] = useState<StatsPoint[]>([]);
  const [instances, setInstances] = useState<InstanceList | null>(null);
  const [stream, setStream] = useState<StreamState>('connecting');
  const [unavailable, setUnavailable] = useState<string | null>(null);

  useEffect(() => {
    if (history.data !== undefined)
      setPoints((current) => mergePoints(current, history.data.points));
  }, [history.data]);

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
      setPoints((current) => mergePoints(current, [point]));
    });
    read('instances', (list) => {
      setUnavailable(null);
      setInstances(list);
    });
    read('unavailable', ({ message }) => setUnavailable(message));
    return () => source.close();
  }, []);

  return { points, instances: instances ?? firstInstances.data ?? null, stream, unavailable };
}
