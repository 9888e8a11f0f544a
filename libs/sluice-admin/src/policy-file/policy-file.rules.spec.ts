import { parsePolicy, type PolicyInput } from '@sluice/nest/internals';
import { describe, expect, it } from 'vitest';
import { compactRules, sameRules } from './policy-file.rules.js';

const policies: PolicyInput[] = [
  { name: 'login', algorithm: 'sliding-log', limit: 5, periodMs: 60_000 },
  { name: 'api', algorithm: 'gcra', limit: 100, periodMs: 1000, burst: 20, key: 'user' },
  { name: 'drip', algorithm: 'leaky-bucket', limit: 10, periodMs: 1000, maxDelayMs: 500 },
  { name: 'bucket', algorithm: 'token-bucket', limit: 10, periodMs: 1000, cost: 2 },
  {
    name: 'monthly',
    algorithm: 'fixed-window',
    limit: 10_000,
    calendar: { unit: 'month', timeZone: 'Europe/Paris', anchorDay: 15 },
    tiers: { pro: { limit: 100_000 }, free: { limit: 1000 } },
  },
  {
    name: 'search',
    algorithm: 'sliding-window',
    limit: 50,
    periodMs: 10_000,
    segments: 5,
    mode: 'shadow',
    penalty: { afterViolations: 3, blockMs: 60_000, escalation: 3 },
    overrides: [
      { identifier: '42', limit: 500, expiresAt: '2027-01-01T00:00:00.000Z' },
      { identifier: 'partner-', prefix: true, unlimited: true },
    ],
    description: 'Search, shadowed while tuned',
  },
  {
    name: 'tokens',
    algorithm: 'fixed-window',
    limit: 100_000,
    periodMs: 60_000,
    key: 'header:x-api-key',
    usage: { header: 'x-tokens-used', maxCost: 4000 },
    consistency: 'exact',
    onStoreError: 'deny',
  },
];

describe('a policy as a file writes it', () => {
  it.each(policies.map((input) => [input.name, input] as const))(
    '%s: parses back to the same rules',
    (_name, input) => {
      const policy = parsePolicy(input);
      const rules = compactRules(policy);
      expect(sameRules(parsePolicy({ ...rules, name: policy.name }), policy)).toBe(true);
    },
  );

  it('leaves out what holds its default, and keeps what was set', () => {
    const policy = parsePolicy(policies[5]!);
    expect(compactRules(policy)).toEqual({
      algorithm: 'sliding-window',
      limit: 50,
      periodMs: 10_000,
      segments: 5,
      penalty: { afterViolations: 3, blockMs: 60_000, escalation: 3 },
      mode: 'shadow',
      overrides: [
        { identifier: '42', limit: 500, expiresAt: '2027-01-01T00:00:00.000Z' },
        { identifier: 'partner-', prefix: true, unlimited: true },
      ],
      description: 'Search, shadowed while tuned',
    });
  });

  it('writes the fields in one order whatever order they were given in', () => {
    const policy = parsePolicy({
      description: 'x',
      periodMs: 1000,
      limit: 3,
      algorithm: 'gcra',
      name: 'a',
    });
    expect(Object.keys(compactRules(policy))).toEqual([
      'algorithm',
      'limit',
      'periodMs',
      'description',
    ]);
  });
});
