import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The stored form of a configured token: `sha256$<salt>$<digest>`, an HMAC-SHA-256 of the token
 * under 16 random bytes, both base64url. Tokens come from the admin's own configuration and are
 * long (credentials.parser.ts), so a slow password hash would guard nothing a salted digest does
 * not, and Node computes this one without native code (docs/security.md).
 */
const SCHEME = 'sha256';
const SALT_BYTES = 16;

export function hashSecret(secret: string): string {
  const salt = randomBytes(SALT_BYTES).toString('base64url');
  return `${SCHEME}$${salt}$${digestOf(salt, secret).toString('base64url')}`;
}

/**
 * Whether `secret` matches `hash`, compared in constant time; false, not an exception, for a hash
 * of another scheme (an argon2id hash from before 0.2 included: its credential starts a new
 * generation on the next start, credential.synchronizer.ts).
 */
export function secretMatches(hash: string, secret: string): boolean {
  const [scheme, salt, digest, ...rest] = hash.split('$');
  if (scheme !== SCHEME || salt === undefined || digest === undefined || rest.length > 0) {
    return false;
  }
  const expected = Buffer.from(digest, 'base64url');
  const actual = digestOf(salt, secret);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

function digestOf(salt: string, secret: string): Buffer {
  return createHmac('sha256', salt).update(secret).digest();
}

/** A fast digest to key caches and sessions by; the secret itself is never kept. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** 32 random bytes, base64url: the one-time admin token and the session secrets. */
export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}
