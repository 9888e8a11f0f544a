import { setResponseHeader } from './http.access.js';
import { TooManySignInFailuresException } from './sign-in.errors.js';

/** Runs a sign-in check; when it refuses for too many failures, first says when to come back. */
export async function withRetryAfter<T>(response: unknown, check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (error) {
    if (error instanceof TooManySignInFailuresException) {
      setResponseHeader(response, 'Retry-After', String(error.retryAfterSeconds));
    }
    throw error;
  }
}
