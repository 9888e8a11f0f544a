import { ForbiddenException } from '@nestjs/common';
import { headerOf, methodOf } from './http.access.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Browsers attach the session cookie on their own, so a page on another origin could make a
 * signed-in operator's browser send a write. SameSite=Strict stops other sites but not sibling
 * subdomains, older browsers or a form that logs the victim into the attacker's session. A plain
 * form can set neither a custom header nor a JSON content type, and a script that sets either
 * triggers a CORS preflight this API never approves: demanding one proves the request came from
 * the panel's own page. Bearer requests need no such proof; no browser adds that header by itself.
 */
export function assertNotCrossSite(request: unknown): void {
  if (SAFE_METHODS.has(methodOf(request))) return;
  if (headerOf(request, 'x-requested-with')?.toLowerCase() === 'sluice') return;
  const mediaType = headerOf(request, 'content-type')?.split(';')[0]?.trim().toLowerCase();
  if (mediaType === 'application/json') return;
  throw new ForbiddenException(
    'A write signed in by cookie needs the header X-Requested-With: sluice or a JSON body',
  );
}
