import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';

const REFRESH_MS = 2_000;

export function useBlockedList(query: { policy?: string; q?: string }) {
  return useQuery({
    queryKey: queryKeys.blocked.list(query),
    queryFn: () => api.blocked.list({ ...query, limit: 100 }),
    refetchInterval: REFRESH_MS,
  });
}
