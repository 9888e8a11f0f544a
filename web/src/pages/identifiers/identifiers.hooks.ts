import type { PlanAssignmentRequest, QuotaGrantRequest } from '@sluice/admin/api';
import { traitsOf } from '@sluice/nest/simulator';
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { usePolicies } from '../../shared/policies.hooks';

const HISTORY_SIZE = 20;
/** How often an identifier's state is read again: slots and counts move within seconds. */
const STATE_REFRESH_MS = 1_000;

/** One identifier under every policy: what its next request would get, nothing charged. */
export function useIdentifierStates(identifier: string) {
  const policies = usePolicies();
  const names = policies.data?.policies.map((policy) => policy.name) ?? [];
  const states = useQueries({
    queries: names.map((policy) => ({
      queryKey: queryKeys.identifiers.inspect(identifier, policy),
      queryFn: () => api.inspect(policy, identifier),
      enabled: identifier !== '',
      refetchInterval: STATE_REFRESH_MS,
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

/** How many other identifiers that contain the text are offered. */
const MATCHES_SHOWN = 20;

/**
 * Other identifiers that contain the text searched for, from the identifiers seen lately and the
 * penalty history: a user name finds `203.0.113.7/<name>`. Each once, the searched one left out.
 */
export function useIdentifierMatches(text: string) {
  return useQuery({
    queryKey: queryKeys.identifiers.matches(text),
    queryFn: async () => {
      const [seen, penalized] = await Promise.all([
        api.identifiers({ q: text, limit: MATCHES_SHOWN }),
        api.penalties({ q: text, limit: 100 }),
      ]);
      const found = [
        ...seen.identifiers.map((each) => each.identifier),
        ...penalized.penalties.map((each) => each.identifier),
      ];
      return [...new Set(found)].filter((each) => each !== text).slice(0, MATCHES_SHOWN);
    },
    enabled: text !== '',
  });
}

/** The identifier's quota under each quota (fixed-window) policy: used, credits, when it resets. */
export function useIdentifierQuotas(identifier: string) {
  const policies = usePolicies();
  const names =
    policies.data?.policies
      .filter((policy) => traitsOf(policy.algorithm).quota)
      .map((policy) => policy.name) ?? [];
  const quotas = useQueries({
    queries: names.map((policy) => ({
      queryKey: queryKeys.identifiers.quota(identifier, policy),
      queryFn: () => api.quotas.get(policy, identifier),
      enabled: identifier !== '',
      refetchInterval: STATE_REFRESH_MS,
    })),
  });
  return { names, quotas };
}

/** Credits (or debits) a quota; the identifier's figures are read again after. */
export function useGrantQuota() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { policy: string; identifier: string } & QuotaGrantRequest) =>
      api.quotas.grant(input.policy, input.identifier, {
        amount: input.amount,
        note: input.note,
        key: input.key,
      }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.identifiers.all }),
  });
}

/** The identifier's plan: its tier under every tiered policy, and who set it. */
export function useIdentifierPlan(identifier: string) {
  return useQuery({
    queryKey: queryKeys.identifiers.plan(identifier),
    queryFn: () => api.plans.get(identifier),
    enabled: identifier !== '',
  });
}

/** Assigns or removes a plan; the identifier's figures are read again after. */
export function useChangePlan(identifier: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: PlanAssignmentRequest | null) =>
      body === null ? api.plans.remove(identifier) : api.plans.assign(identifier, body),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.identifiers.all }),
  });
}
