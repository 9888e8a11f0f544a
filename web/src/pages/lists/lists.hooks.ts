import type { ListEntryRequest } from '@sluice/admin/api';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';

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
