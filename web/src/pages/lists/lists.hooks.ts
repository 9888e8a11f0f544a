import type { ListEntryRequest } from '@sluice/admin/api';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';

/** The instances send their matches once a second; the counts follow at this pace. */
const REFRESH_MS = 2_000;

export function useLists() {
  return useQuery({
    queryKey: queryKeys.lists,
    queryFn: () => api.lists.list(),
    refetchInterval: REFRESH_MS,
  });
}

export function useAddListEntry() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ListEntryRequest) => api.lists.add(body),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.lists }),
  });
}

export function useRemoveListEntry() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, comment }: { id: string; comment: string | null }) =>
      api.lists.remove(id, { comment }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.lists }),
  });
}
