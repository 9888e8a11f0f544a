import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { queryKeys } from '../api/query-keys';

/** The instances send their matches once a second; the counts follow at this pace. */
const REFRESH_MS = 2_000;

/** Every allow and deny list entry with its matches: the Lists screen and each policy's page. */
export function useLists() {
  return useQuery({
    queryKey: queryKeys.lists,
    queryFn: () => api.lists.list(),
    refetchInterval: REFRESH_MS,
  });
}
