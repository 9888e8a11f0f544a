import { serialize } from 'cookie';

export const SESSION_COOKIE = 'sluice_session';

interface CookieScope {
  secure: boolean;
}

/**
 * Invisible to scripts, never sent by another site's page, only to the admin API's own paths.
 * It names no Path: a browser then keeps it for the folder of the URL that set it,
 * `<where the admin is>/api` as the browser sees it, behind a global prefix or a proxy's sub-path
 * alike (docs/security.md).
 */
export function sessionCookie(secret: string, maxAgeMs: number, scope: CookieScope): string {
  return serialize(SESSION_COOKIE, secret, {
    httpOnly: true,
    sameSite: 'strict',
    maxAge: Math.floor(maxAgeMs / 1000),
    secure: scope.secure,
  });
}

/** Replaces the session cookie with an empty one the browser drops at once. */
export function clearedSessionCookie(scope: CookieScope): string {
  return serialize(SESSION_COOKIE, '', {
    httpOnly: true,
    sameSite: 'strict',
    maxAge: 0,
    secure: scope.secure,
  });
}
