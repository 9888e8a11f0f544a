import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { ApiError } from '../api/client';
import { SESSION_KEY } from '../shared/session.hooks';

/**
 * The panel's query client. Any 401 means the session has ended (signed out elsewhere, expired,
 * its token rotated): the panel goes back to the sign-in page at once instead of polling on with
 * a dead cookie (docs/security.md).
 */
export function createQueryClient(): QueryClient {
  const signedOutBy = (error: unknown): void => {
    if (error instanceof ApiError && error.status === 401) {
      client.setQueryData(SESSION_KEY, null);
    }
  };
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({ onError: signedOutBy }),
    mutationCache: new MutationCache({ onError: signedOutBy }),
    defaultOptions: {
      queries: {
        // A refusal (401, 403, 404, 400) will not change by asking again.
        retry: (failures, error) =>
          !(error instanceof ApiError && error.status < 500) && failures < 2,
        refetchOnWindowFocus: false,
      },
    },
  });
  return client;
}
