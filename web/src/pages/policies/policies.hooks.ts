import type {
  CandidatePromotion,
  CandidateProposal,
  ChangeNoteRequest,
  PolicyWriteRequest,
  ProfileQuery,
  ReplayRequest,
} from '@sluice/admin/api';
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
    mutationFn: ({ body, confirmReset }: { body: PolicyWriteRequest; confirmReset: boolean }) =>
      api.policies.put(name, body, confirmReset),
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
    mutationFn: ({ version, comment }: { version: number; comment: string | null }) =>
      api.policies.restore(name, version, comment === null ? {} : { comment }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.policies.all }),
  });
}

/** The policy's candidate compared with it, read again every 5 s while the page is open. */
export function useCandidate(name: string, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.policies.candidate(name),
    queryFn: () => api.policies.candidate.get(name),
    enabled,
    refetchInterval: 5_000,
  });
}

/** Proposing, promoting and discarding all change what the policy page shows: read it again. */
export function useCandidateActions(name: string) {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.policies.all });
  return {
    propose: useMutation({
      mutationFn: (body: CandidateProposal) => api.policies.candidate.propose(name, body),
      onSuccess: refresh,
    }),
    promote: useMutation({
      mutationFn: (body: CandidatePromotion) => api.policies.candidate.promote(name, body),
      onSuccess: refresh,
    }),
    discard: useMutation({
      mutationFn: (body: ChangeNoteRequest = {}) => api.policies.candidate.discard(name, body),
      onSuccess: refresh,
    }),
  };
}

/** A policy's traffic profile over a range, one tier's or (null) every request's. */
export function useProfile(name: string, range: ProfileRange, tier: string | null) {
  return useQuery({
    queryKey: queryKeys.policies.profile(name, { range, tier }),
    queryFn: () =>
      api.policies.profile(name, {
        range,
        ...(tier === null ? {} : { tier: tier === '' ? '-' : tier }),
      }),
    refetchInterval: 60_000,
  });
}

export type ProfileRange = NonNullable<ProfileQuery['range']>;

/** A limit proposed from the profile for a percentile and headroom (both in percent). */
export function useRecommendation(
  name: string,
  range: ProfileRange,
  tier: string | null,
  percentile: number,
  headroom: number | undefined,
) {
  return useQuery({
    queryKey: queryKeys.policies.recommendation(name, { range, tier, percentile, headroom }),
    queryFn: () =>
      api.policies.recommendation(name, {
        range,
        percentile,
        ...(headroom === undefined ? {} : { headroom }),
        ...(tier === null ? {} : { tier: tier === '' ? '-' : tier }),
      }),
    enabled: headroom !== undefined,
    refetchInterval: 60_000,
  });
}

/** Replays the policy's recorded requests through a rule; nothing is applied. */
export function useReplay(name: string) {
  return useMutation({
    mutationFn: (body: ReplayRequest) => api.policies.replay(name, body),
  });
}
