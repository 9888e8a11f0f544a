import argon2 from 'argon2';
import { createHash, randomBytes } from 'node:crypto';

/**
 * argon2id at OWASP's minimum (19 MiB, 2 passes, 1 lane): a bearer token is checked against every
 * configured hash, so each check must stay cheap for us while still costly for a cracker.
 */
const ARGON2_OPTIONS = {
  type: argon2.argon2id,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;

export function hashSecret(secret: string): Promise<string> {
  return argon2.hash(secret, ARGON2_OPTIONS);
}

/** Whether `secret` matches `hash`; false, not an exception, for a hash argon2 cannot read. */
export async function secretMatches(hash: string, secret: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, secret);
  } catch {
    return false;
  }
}

/** A fast digest to key caches and sessions by; the secret itself is never kept. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** 32 random bytes, base64url: the one-time admin token and the session secrets. */
export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}
