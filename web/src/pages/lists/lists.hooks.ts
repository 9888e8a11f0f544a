import type { ListEntryRequest } from '@sluice/admin/api';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';

export function useAddListEntry() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ body, confirm = false }: { body: ListEntryRequest; confirm?: boolean }) =>
      api.lists.add(body, confirm),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.lists }),
  });
}

export function useSetListEntryMode() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { id: string; mode: 'enforce' | 'shadow'; confirm?: boolean }) =>
      api.lists.setMode(input.id, { mode: input.mode }, input.confirm ?? false),
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

/** User-Agents unlike each other: a pattern matching all of them matches any. */
const UNLIKE_AGENTS = ['', 'curl/8.5.0', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64)', 'Z'];

/**
 * What an entry would reach beyond the usual, as far as the panel can tell before sending it
 * (every address, every User-Agent); the server also knows the writer's own address and says so.
 */
export function reachesEveryone(entry: ListEntryRequest): string | undefined {
  if (entry.mode === 'shadow') return undefined;
  const verb = entry.list === 'deny' ? 'deny' : 'allow';
  if (entry.kind === 'address' && /\/0$/.test(entry.value)) {
    return `${entry.value} holds every address of its family: it would ${verb} all traffic.`;
  }
  if (entry.kind === 'userAgent') {
    try {
      const pattern = new RegExp(entry.value, 'i');
      if (UNLIKE_AGENTS.every((agent) => pattern.test(agent))) {
        return `The pattern matches every User-Agent: it would ${verb} all traffic.`;
      }
    } catch {
      return undefined;
    }
  }
  return undefined;
}
