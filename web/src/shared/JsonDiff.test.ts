import { describe, expect, it } from 'vitest';
import { readableTimes } from './JsonDiff';

describe('a diff of policies', () => {
  it('writes epoch-millisecond times as ISO 8601, at any depth, and leaves the rest', () => {
    expect(
      readableTimes({
        limit: 5,
        updatedAt: 1_795_721_460_000,
        overrides: [{ identifier: 'neville', expiresAt: 1_795_721_460_000 }],
        description: null,
      }),
    ).toEqual({
      limit: 5,
      updatedAt: '2026-11-26T19:31:00.000Z',
      overrides: [{ identifier: 'neville', expiresAt: '2026-11-26T19:31:00.000Z' }],
      description: null,
    });
  });
});
