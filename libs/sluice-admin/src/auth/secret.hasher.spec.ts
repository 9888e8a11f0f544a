import { describe, expect, it } from 'vitest';
import { hashSecret, randomSecret, secretMatches, sha256Hex } from './secret.hasher.js';

describe('secret hashing', () => {
  it('hashes with argon2id, salted, and verifies only the right secret', async () => {
    const [first, second] = await Promise.all([
      hashSecret('correct-horse-battery'),
      hashSecret('correct-horse-battery'),
    ]);
    expect(first).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    expect(first).not.toContain('correct-horse-battery');
    expect(second).not.toBe(first);
    expect(await secretMatches(first, 'correct-horse-battery')).toBe(true);
    expect(await secretMatches(first, 'correct-horse-batterY')).toBe(false);
  });

  it('answers false for a hash argon2 cannot read', async () => {
    expect(await secretMatches('not a hash', 'anything')).toBe(false);
  });

  it('makes 32-byte base64url secrets and hex SHA-256 digests', () => {
    expect(randomSecret()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(randomSecret()).not.toBe(randomSecret());
    expect(sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });
});
