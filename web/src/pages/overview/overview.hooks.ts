import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';

const REFRESH_MS = 5_000;

/** The identifiers seen over the last day, across policies, read again every 5 s. */
export function useTopIdentifiers() {
  return useQuery({
    queryKey: queryKeys.identifiers.top,
    queryFn: () => api.identifiers({ limit: 50 }),
    refetchInterval: REFRESH_MS,
  });
}

export function useEnforcement() {
  return useQuery({ queryKey: queryKeys.enforcement, queryFn: api.enforcement.get });
}

/** Turns enforcement on or off; the answer replaces the state read. */
export function useSetEnforcement(onDone: () => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { enabled: boolean; comment: string | null }) => api.enforcement.set(input),
    onSuccess: (next) => {
      queryClient.setQueryData(queryKeys.enforcement, next);
      onDone();
    },
  });
}
