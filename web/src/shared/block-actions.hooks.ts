import type { BlockRequest } from '@sluice/admin/api';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import { queryKeys } from '../api/query-keys';

// Blocking, lifting and resetting by hand, from the Blocked and the Identifiers screens alike.

/** Everything that shows blocks or counters is read again after an action on them. */
function useRefreshAfter() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: queryKeys.blocked.all }),
      queryClient.invalidateQueries({ queryKey: queryKeys.identifiers.all }),
    ]);
}

/** `key` names an identifier shown cut (over 256 characters): the server acts on it, not the text. */
function keyQuery(key: string | null | undefined): { key?: string } {
  return key === null || key === undefined ? {} : { key };
}

export interface UnblockInput {
  policy: string;
  identifier: string;
  key?: string | null;
  keyKind: string;
  reason: string;
  /** Lifting leaves the counters: a client still over the limit would be refused again. */
  resetCounters: boolean;
  /** Lifting keeps the offence level: the client's next block would be longer. */
  forgetOffences: boolean;
}

export function useUnblock() {
  const refresh = useRefreshAfter();
  return useMutation({
    mutationFn: async (input: UnblockInput) => {
      await api.blocked.unblock(input.policy, input.identifier, {
        keyKind: input.keyKind,
        reason: input.reason.trim() === '' ? undefined : input.reason,
        ...(input.forgetOffences ? { forgetOffences: true } : {}),
        ...keyQuery(input.key),
      });
      if (input.resetCounters) {
        await api.resetCounters(input.policy, input.identifier, keyQuery(input.key));
      }
    },
    onSettled: refresh,
  });
}

export function useBlock() {
  const refresh = useRefreshAfter();
  return useMutation({
    mutationFn: (input: BlockRequest) => api.blocked.block(input),
    onSettled: refresh,
  });
}

export function useResetCounters() {
  const refresh = useRefreshAfter();
  return useMutation({
    mutationFn: (input: { policy: string; identifier: string; key?: string | null }) =>
      api.resetCounters(input.policy, input.identifier, keyQuery(input.key)),
    onSettled: refresh,
  });
}
