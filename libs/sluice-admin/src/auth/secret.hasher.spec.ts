import { describe, expect, it } from 'vitest';
import { hashSecret, randomSecret, secretMatches, sha256Hex } from './secret.hasher.js';

describe('secret hashing', () => {
  it('keeps a salted digest, never the secret, and verifies only the right secret', () => {
    const first = hashSecret('correct-horse-battery');
    const second = hashSecret('correct-horse-battery');
    expect(first).toMatch(/^sha256\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(first).not.toContain('correct-horse-battery');
    expect(second).not.toBe(first);
    expect(secretMatches(first, 'correct-horse-battery')).toBe(true);
    expect(secretMatches(second, 'correct-horse-battery')).toBe(true);
    expect(secretMatches(first, 'correct-horse-batterY')).toBe(false);
    expect(secretMatches(first, '')).toBe(false);
  });

  it('answers false for a hash it cannot read, an argon2id one included', () => {
    expect(secretMatches('not a hash', 'anything')).toBe(false);
    expect(secretMatches('sha256$salt', 'anything')).toBe(false);
    expect(secretMatches('sha256$salt$short', 'anything')).toBe(false);
    expect(secretMatches(`${hashSecret('x')}$extra`, 'x')).toBe(false);
    const argon2id =
      '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$0d7WZ7yDAG6ZcJYXdEdKx0pO2rXTfOr0aqf0y6n3wQM';
    expect(secretMatches(argon2id, 'anything')).toBe(false);
  });

  it('makes 32-byte base64url secrets and hex SHA-256 digests', () => {
    expect(randomSecret()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(randomSecret()).not.toBe(randomSecret());
    expect(sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });
});
