import { ForbiddenException } from '@nestjs/common';
import { parsePolicy, type Policy } from '@sluice/nest/internals';
import { describe, expect, it } from 'vitest';
import type { Actor } from '../common/actor.js';
import { assertMayChange, beyondOperatorScope } from './operator-scope.js';

const base = parsePolicy({ name: 'reply', algorithm: 'sliding-log', limit: 5, periodMs: 60_000 });
const edited = (changes: Partial<Policy>): Policy => ({ ...base, ...changes });
const operator: Actor = { name: 'olga', role: 'operator', ip: null, userAgent: null };
const admin: Actor = { ...operator, name: 'alice', role: 'admin' };

describe('what an operator may change', () => {
  it('allows overrides and moving between enforce and shadow', () => {
    const overrides = [
      {
        identifier: '42',
        prefix: false,
        keyKind: 'user',
        limit: 100,
        unlimited: false,
        tier: null,
        anchorDay: null,
        expiresAt: null,
      },
    ];
    expect(beyondOperatorScope(base, edited({ overrides, mode: 'shadow' }))).toEqual([]);
    expect(beyondOperatorScope(edited({ mode: 'shadow' }), base)).toEqual([]);
  });

  it('names every other field changed, and mode when it turns the policy off or back on', () => {
    expect(
      beyondOperatorScope(base, edited({ limit: 6, description: 'more', mode: 'off' })),
    ).toEqual(['limit', 'mode', 'description']);
    expect(beyondOperatorScope(edited({ mode: 'off' }), base)).toEqual(['mode']);
  });

  it("names tiers: raising a plan's limit is an admin's call, like the policy's own limit", () => {
    const tiered = edited({ tiers: { pro: { limit: 50, burst: null, maxDelayMs: null } } });
    const raised = edited({ tiers: { pro: { limit: 500, burst: null, maxDelayMs: null } } });
    expect(beyondOperatorScope(tiered, raised)).toEqual(['tiers']);
    expect(() => assertMayChange(operator, tiered, raised)).toThrow(
      /changing tiers needs the admin role/,
    );
  });

  it('ignores bookkeeping: version, source and who wrote it last', () => {
    const rewritten = edited({ version: 9, source: 'admin', updatedBy: 'alice', updatedAt: 'now' });
    expect(beyondOperatorScope(base, rewritten)).toEqual([]);
  });

  it('refuses an operator creating a policy, and lets an admin change anything', () => {
    expect(() => assertMayChange(operator, null, base)).toThrow(ForbiddenException);
    expect(() => assertMayChange(operator, base, edited({ limit: 1 }))).toThrow(
      /changing limit needs the admin role/,
    );
    expect(() => assertMayChange(admin, base, edited({ limit: 1 }))).not.toThrow();
    expect(() => assertMayChange(admin, null, base)).not.toThrow();
  });
});
