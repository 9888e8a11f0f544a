import { useQueries, useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { usePolicies } from '../../shared/policies.hooks';

const HISTORY_SIZE = 20;

/** One identifier under every policy: what its next request would get, nothing charged. */
export function useIdentifierStates(identifier: string) {
  const policies = usePolicies();
  const names = policies.data?.policies.map((policy) => policy.name) ?? [];
  const states = useQueries({
    queries: names.map((policy) => ({
      queryKey: queryKeys.identifiers.inspect(identifier, policy),
      queryFn: () => api.inspect(policy, identifier),
      enabled: identifier !== '',
      refetchInterval: 5_000,
    })),
  });
  return { policies, names, states };
}

export function useIdentifierTraffic(identifier: string) {
  return useQuery({
    queryKey: queryKeys.identifiers.traffic(identifier),
    queryFn: () => api.identifiers({ q: identifier, limit: 100 }),
    enabled: identifier !== '',
    refetchInterval: 5_000,
  });
}

export function useIdentifierPenalties(identifier: string) {
  return useQuery({
    queryKey: queryKeys.identifiers.penalties(identifier),
    queryFn: () => api.penalties({ identifier, limit: HISTORY_SIZE }),
    enabled: identifier !== '',
  });
}
