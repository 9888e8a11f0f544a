import type { PolicyWriteRequest } from '@sluice/admin/api';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';

export const POLICIES_KEY = ['policies'] as const;

export function usePolicies() {
  return useQuery({ queryKey: POLICIES_KEY, queryFn: api.policies.list });
}

export function usePolicy(name: string | undefined) {
  return useQuery({
    queryKey: [...POLICIES_KEY, name],
    queryFn: () => api.policies.get(name as string),
    enabled: name !== undefined,
  });
}

export function useRevisions(name: string) {
  return useQuery({
    queryKey: [...POLICIES_KEY, name, 'revisions'],
    queryFn: () => api.policies.revisions(name),
  });
}

export function useSavePolicy(name: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: PolicyWriteRequest) => api.policies.put(name, body),
    onSuccess: (policy) => {
      queryClient.setQueryData([...POLICIES_KEY, name], policy);
      return queryClient.invalidateQueries({ queryKey: POLICIES_KEY });
    },
  });
}

export function useDeletePolicy(name: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { version: number; comment: string | null }) =>
      api.policies.remove(name, body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: POLICIES_KEY }),
  });
}

export function useRestoreRevision(name: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (version: number) => api.policies.restore(name, version),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: POLICIES_KEY }),
  });
}
