import { USER_HEADER } from '../bench.constants.js';

interface HttpRequest {
  ip?: string;
  headers: Record<string, string | string[] | undefined>;
}

/** What the peers count, as an app would write it: the user header when present, else the client address. */
export function trackedKey(request: HttpRequest): string {
  const user = request.headers[USER_HEADER];
  return typeof user === 'string' && user !== '' ? user : (request.ip ?? 'unknown');
}
