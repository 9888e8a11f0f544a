import type { AdminErrorBody } from '../common/admin-api.types.js';
import type { PolicyFileConflict } from '../common/policy-file.types.js';
import { CliInputError } from './policy-file.format.js';
import { conflictLine } from './plan.printer.js';

/** How long one call to the admin may take: an apply writes every change in one transaction. */
const CALL_TIMEOUT_MS = 60_000;

/** The admin API refused or failed: printed as is, exit code 2. */
export class AdminCallError extends Error {}

/**
 * Where the admin is mounted, as the panel's address (`https://app.example.com/sluice`); its API
 * is under `/api`. A URL already ending in /api is taken as the API's.
 */
export function apiBase(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliInputError(`--url (or SLUICE_ADMIN_URL) must be an http(s) URL, not "${url}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new CliInputError(`--url (or SLUICE_ADMIN_URL) must be an http(s) URL, not "${url}"`);
  }
  const path = parsed.pathname.replace(/\/+$/, '');
  return `${parsed.origin}${path.endsWith('/api') ? path : `${path}/api`}`;
}

function refusal(status: number, body: unknown, path: string): string {
  const error = (
    typeof body === 'object' && body !== null ? body : {}
  ) as Partial<AdminErrorBody> & {
    conflicts?: PolicyFileConflict[];
  };
  if (status === 401)
    return 'The admin refused the token (401): check SLUICE_ADMIN_TOKEN or --token.';
  const lines = [
    `The admin answered ${status} to ${path}: ${String(error.message ?? 'no reason given')}`,
  ];
  for (const issue of error.issues ?? []) lines.push(`  ${issue.field}: ${issue.message}`);
  for (const conflict of error.conflicts ?? []) lines.push(conflictLine(conflict));
  return lines.join('\n');
}

/** Calls the admin API with a bearer token; answers the parsed body, or throws AdminCallError. */
export function adminApi(base: string, token: string, fetcher: typeof fetch = fetch) {
  return async <T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> => {
    let response: Response;
    try {
      response = await fetcher(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      });
    } catch (error) {
      const cause = (error as { cause?: { message?: string } }).cause?.message;
      throw new AdminCallError(
        `Could not reach the admin at ${base}: ${cause ?? (error as Error).message}`,
      );
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      throw new AdminCallError(
        `${base}${path} answered ${response.status} with something other than JSON: is --url the admin's address (where the panel is)?`,
      );
    }
    if (!response.ok) throw new AdminCallError(refusal(response.status, parsed, path));
    return parsed as T;
  };
}
