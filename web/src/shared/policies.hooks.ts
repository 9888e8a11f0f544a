import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { queryKeys } from '../api/query-keys';

/** Every policy, for the screens that list or pick one. */
export function usePolicies() {
  return useQuery({ queryKey: queryKeys.policies.all, queryFn: api.policies.list });
}
