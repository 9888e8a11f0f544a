import type { PolicyWriteRequest } from '@sluice/admin/api';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';

export { usePolicies } from '../../shared/policies.hooks';

export function usePolicy(name: string | undefined) {
  return useQuery({
    queryKey: queryKeys.policies.one(name),
    queryFn: () => api.policies.get(name as string),
    enabled: name !== undefined,
  });
}

export function useRevisions(name: string) {
  return useQuery({
    queryKey: queryKeys.policies.revisions(name),
    queryFn: () => api.policies.revisions(name),
  });
}

export function useSavePolicy(name: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: PolicyWriteRequest) => api.policies.put(name, body),
    onSuccess: (policy) => {
      queryClient.setQueryData(queryKeys.policies.one(name), policy);
      return queryClient.invalidateQueries({ queryKey: queryKeys.policies.all });
    },
  });
}

export function useDeletePolicy(name: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { version: number; comment: string | null }) =>
      api.policies.remove(name, body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.policies.all }),
  });
}

export function useRestoreRevision(name: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (version: number) => api.policies.restore(name, version),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.policies.all }),
  });
}
