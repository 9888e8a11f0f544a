import { parse as parseCookies } from 'cookie';

/** What Express requests and Fastify requests both carry (Fastify also has the Node one as `raw`). */
interface RequestLike {
  method?: string;
  headers?: Record<string, string | string[] | undefined>;
  socket?: { remoteAddress?: string; encrypted?: boolean } | null;
  raw?: RequestLike;
}

const MAX_USER_AGENT_LENGTH = 512;

export function headerOf(request: unknown, name: string): string | undefined {
  const value = (request as RequestLike).headers?.[name];
  return Array.isArray(value) ? value[0] : value;
}

export function methodOf(request: unknown): string {
  return ((request as RequestLike).method ?? 'GET').toUpperCase();
}

/** Read from the raw Cookie header, so no cookie plugin or middleware is needed on either adapter. */
export function cookieOf(request: unknown, name: string): string | undefined {
  const header = headerOf(request, 'cookie');
  if (header === undefined) return undefined;
  const value = parseCookies(header)[name];
  return value === '' ? undefined : value;
}

export function userAgentOf(request: unknown): string | null {
  const userAgent = headerOf(request, 'user-agent');
  return userAgent === undefined ? null : userAgent.slice(0, MAX_USER_AGENT_LENGTH);
}

/**
 * Over TLS, or behind a proxy saying so. Trusting an unverified X-Forwarded-Proto is harmless
 * here: it only adds Secure, and a browser on plain HTTP then drops the cookie it was given.
 */
export function cameOverHttps(request: unknown): boolean {
  if (socketOf(request)?.encrypted === true) return true;
  const forwarded = headerOf(request, 'x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  return forwarded === 'https';
}

/** Fastify's reply.header, else Express's (and Node's) res.setHeader. */
export function setResponseHeader(response: unknown, name: string, value: string): void {
  const target = response as {
    raw?: unknown;
    header?: (name: string, value: string) => unknown;
    setHeader?: (name: string, value: string) => unknown;
  };
  if (target.raw !== undefined && typeof target.header === 'function') target.header(name, value);
  else target.setHeader?.(name, value);
}

function socketOf(request: unknown): RequestLike['socket'] {
  const req = request as RequestLike;
  return (req.raw ?? req).socket;
}
