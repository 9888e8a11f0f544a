import { roleSatisfies, type AdminRole, type SessionView } from '@sluice/admin/api';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, api } from '../api/client';
import { queryKeys } from '../api/query-keys';

export const SESSION_KEY = queryKeys.session;

/** Who is signed in; `null` when nobody is (the server answered 401). */
export function useSession() {
  return useQuery<SessionView | null>({
    queryKey: SESSION_KEY,
    queryFn: async () => {
      try {
        return await api.session.current();
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) return null;
        throw error;
      }
    },
    staleTime: Infinity,
  });
}

/** Whether the signed-in user may use controls that need `needed`. */
export function useCan(needed: AdminRole): boolean {
  const session = useSession().data;
  return session != null && roleSatisfies(session.role, needed);
}

/** Signs in with a credential's name and token; the session it opens is the panel's at once. */
export function useSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (credential: { name: string; password: string }) => api.session.signIn(credential),
    onSuccess: (session) => queryClient.setQueryData(SESSION_KEY, session),
  });
}

export function useSignOut() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.session.signOut(),
    onSettled: () => {
      queryClient.clear();
      queryClient.setQueryData(SESSION_KEY, null);
    },
  });
}
