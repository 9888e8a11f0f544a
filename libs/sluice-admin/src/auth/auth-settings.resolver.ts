import type { AdminAuthOptions, AdminCredential } from '../config/admin-auth-options.interface.js';
import { CredentialsConfigError, parseCredentials } from './credentials.parser.js';

const OPTION = 'SluiceAdminModule options.auth';
const DEFAULT_SESSION_TTL_MS = 8 * 60 * 60 * 1000;
const MIN_SESSION_TTL_MS = 1000;
const MAX_SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

export interface AuthSettings {
  credentials: AdminCredential[];
  production: boolean;
  sessionTtlMs: number;
  secureCookies: boolean;
}

/** Validates `auth` and fills in its defaults; throws CredentialsConfigError naming each bad field. */
export function resolveAuthSettings(
  options: AdminAuthOptions | undefined,
  nodeEnv = process.env.NODE_ENV,
): AuthSettings {
  const problems: string[] = [];
  const { production = nodeEnv === 'production', sessionTtlMs = DEFAULT_SESSION_TTL_MS } =
    options ?? {};
  if (typeof production !== 'boolean') problems.push(`${OPTION}.production: must be a boolean`);
  const secureCookies = options?.secureCookies ?? production === true;
  if (typeof secureCookies !== 'boolean') {
    problems.push(`${OPTION}.secureCookies: must be a boolean`);
  }
  if (
    !Number.isSafeInteger(sessionTtlMs) ||
    sessionTtlMs < MIN_SESSION_TTL_MS ||
    sessionTtlMs > MAX_SESSION_TTL_MS
  ) {
    problems.push(
      `${OPTION}.sessionTtlMs: must be a whole number of milliseconds from ${MIN_SESSION_TTL_MS} to ${MAX_SESSION_TTL_MS} (30 days)`,
    );
  }
  let credentials: AdminCredential[] = [];
  try {
    credentials = parseCredentials(options?.credentials);
  } catch (error) {
    if (!(error instanceof CredentialsConfigError)) throw error;
    problems.push(...error.problems);
  }
  if (problems.length > 0) throw new CredentialsConfigError(problems);
  if (production && credentials.length === 0) {
    throw new CredentialsConfigError([
      `${OPTION}.credentials: none configured, and in production the admin refuses to start without them. ` +
        'Set SLUICE_ADMIN_TOKENS to comma-separated name:role:token entries ' +
        '(roles viewer, operator, admin; tokens of 12+ characters), e.g. ' +
        'SLUICE_ADMIN_TOKENS="alice:admin:<long random token>,bob:viewer:<another>", ' +
        'and pass it as auth.credentials',
    ]);
  }
  return { credentials, production, sessionTtlMs, secureCookies };
}
