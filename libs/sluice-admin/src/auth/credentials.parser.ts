import type { AdminCredential } from '../config/admin-auth-options.interface.js';
import { ADMIN_ROLES, isAdminRole } from '../common/admin-role.js';

const OPTION = 'SluiceAdminModule options.auth.credentials';
const NAME = /^[A-Za-z0-9_.@-]{1,64}$/;
export const MIN_TOKEN_LENGTH = 12;
/** Longer tokens only cost hashing time; the limit also bounds what a request may make us hash. */
export const MAX_TOKEN_LENGTH = 1024;
/** What fits in `Authorization: Bearer <token>` unchanged: visible ASCII, no spaces. */
const TOKEN_CHARACTERS = /^[\x21-\x7e]+$/;

/** Thrown at start-up for bad credentials; the message names each bad field, never a token. */
export class CredentialsConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
    this.name = 'CredentialsConfigError';
  }
}

/**
 * Reads `auth.credentials`: a list of {name, role, token} or the SLUICE_ADMIN_TOKENS string
 * "name:role:token,…" (the token is everything after the second colon). Absent or blank → [].
 * Invalid values are never echoed: a misordered entry could put a token where a name belongs.
 */
export function parseCredentials(
  input: unknown,
  entryPath: (index: number) => string = (index) => `${OPTION}[${index}]`,
): AdminCredential[] {
  if (input === undefined || input === null) return [];
  const entries = typeof input === 'string' ? splitCredentialString(input) : input;
  if (!Array.isArray(entries)) {
    throw new CredentialsConfigError([
      `${OPTION}: expected a list of {name, role, token} or a "name:role:token,…" string`,
    ]);
  }
  const problems: string[] = [];
  const credentials: AdminCredential[] = [];
  const firstIndexOfName = new Map<string, number>();
  entries.forEach((entry: unknown, index) => {
    if (entry === undefined) return;
    const credential = checkedCredential(entry, entryPath(index), problems);
    if (credential === undefined) return;
    const earlier = firstIndexOfName.get(credential.name);
    if (earlier !== undefined) {
      problems.push(
        `${entryPath(index)}.name: "${credential.name}" is already used by ${entryPath(earlier)}`,
      );
      return;
    }
    firstIndexOfName.set(credential.name, index);
    credentials.push(credential);
  });
  if (problems.length > 0) throw new CredentialsConfigError(problems);
  return credentials;
}

/** Entries by position (blank ones undefined, so indexes match what the operator wrote). */
function splitCredentialString(input: string): (Record<string, string> | string | undefined)[] {
  return input.split(',').map((raw) => {
    const entry = raw.trim();
    if (entry === '') return undefined;
    const first = entry.indexOf(':');
    const second = first < 0 ? -1 : entry.indexOf(':', first + 1);
    if (second < 0) return entry;
    return {
      name: entry.slice(0, first),
      role: entry.slice(first + 1, second),
      token: entry.slice(second + 1),
    };
  });
}

function checkedCredential(
  entry: unknown,
  path: string,
  problems: string[],
): AdminCredential | undefined {
  if (typeof entry === 'string') {
    problems.push(`${path}: expected "name:role:token"`);
    return undefined;
  }
  if (typeof entry !== 'object' || entry === null) {
    problems.push(`${path}: expected an object {name, role, token}`);
    return undefined;
  }
  const { name, role, token } = entry as Record<string, unknown>;
  const before = problems.length;
  if (typeof name !== 'string' || !NAME.test(name)) {
    problems.push(`${path}.name: must be 1 to 64 letters, digits or _ . @ -`);
  }
  if (!isAdminRole(role)) {
    problems.push(`${path}.role: must be one of ${ADMIN_ROLES.join(', ')}`);
  }
  const tokenProblem = whatIsWrongWithToken(token);
  if (tokenProblem !== null) problems.push(`${path}.token: ${tokenProblem}`);
  if (problems.length > before) return undefined;
  return { name: name as string, role: role as AdminCredential['role'], token: token as string };
}

function whatIsWrongWithToken(token: unknown): string | null {
  if (typeof token !== 'string') return 'must be a string';
  if (token.length < MIN_TOKEN_LENGTH) return `must be at least ${MIN_TOKEN_LENGTH} characters`;
  if (token.length > MAX_TOKEN_LENGTH) return `must be at most ${MAX_TOKEN_LENGTH} characters`;
  if (!TOKEN_CHARACTERS.test(token)) return 'must be visible ASCII characters without spaces';
  return null;
}

/**
 * What is wrong with the admin's credentials as a "name:role:token,…" string from an environment
 * variable, each problem naming the entry by its place (1 for the first): what an app that reads
 * SLUICE_ADMIN_TOKENS itself says under that variable's name. Empty when they are good.
 */
export function credentialProblems(tokens: string): string[] {
  try {
    parseCredentials(tokens, (index) => `entry ${index + 1}`);
    return [];
  } catch (error) {
    if (error instanceof CredentialsConfigError) return error.problems;
    throw error;
  }
}
