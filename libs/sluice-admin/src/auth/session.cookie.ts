import { serialize } from 'cookie';

export const SESSION_COOKIE = 'sluice_session';

interface CookieScope {
  /** The admin's path without slashes: the cookie goes only to /<path>/… */
  adminPath: string;
  secure: boolean;
}

/** Invisible to scripts, never sent by another site's page, only to the admin's own paths. */
export function sessionCookie(secret: string, maxAgeMs: number, scope: CookieScope): string {
  return serialize(SESSION_COOKIE, secret, {
    httpOnly: true,
    sameSite: 'strict',
    path: `/${scope.adminPath}`,
    maxAge: Math.floor(maxAgeMs / 1000),
    secure: scope.secure,
  });
}

/** Replaces the session cookie with an empty one the browser drops at once. */
export function clearedSessionCookie(scope: CookieScope): string {
  return serialize(SESSION_COOKIE, '', {
    httpOnly: true,
    sameSite: 'strict',
    path: `/${scope.adminPath}`,
    maxAge: 0,
    secure: scope.secure,
  });
}
