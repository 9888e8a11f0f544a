import { describe, expect, it } from 'vitest';
import { summarize, type PolicyDecision } from '../engine/decision.js';
import { rateLimitHeaders } from './rate-limit.headers.js';

function part(policy: string, fields: Partial<PolicyDecision> = {}): PolicyDecision {
  return {
    allowed: true,
    policy,
    algorithm: 'fixed-window',
    limit: 10,
    remaining: 4,
    resetMs: 30_500,
    retryAfterMs: 0,
    delayMs: 0,
    reason: 'ok',
    ...fields,
  };
}

const PERIODS: Record<string, number> = { like: 60_000, daily: 86_400_000 };
const periodOf = (name: string) => PERIODS[name] ?? 0;

describe('rateLimitHeaders', () => {
  const admitted = [part('like'), part('daily', { limit: 100, remaining: 2, resetMs: 3_600_000 })];
  const decision = summarize(admitted, true);

  it('draft: one item per enforced policy, seconds rounded up', () => {
    expect(rateLimitHeaders('draft', decision, admitted, periodOf)).toEqual([
      ['RateLimit-Policy', '"like";q=10;w=60, "daily";q=100;w=86400'],
      ['RateLimit', '"like";r=4;t=31, "daily";r=2;t=3600'],
    ]);
  });

  it('legacy: the deciding policy alone, the one with the least left', () => {
    expect(rateLimitHeaders('legacy', decision, admitted, periodOf)).toEqual([
      ['X-RateLimit-Limit', '100'],
      ['X-RateLimit-Remaining', '2'],
      ['X-RateLimit-Reset', '3600'],
    ]);
  });

  it('both: the draft headers, then the legacy ones', () => {
    const names = rateLimitHeaders('both', decision, admitted, periodOf).map(([name]) => name);
    expect(names).toEqual([
      'RateLimit-Policy',
      'RateLimit',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
    ]);
  });

  it('a refusal says when to come back, in every style, and resets at the retry', () => {
    const refusedParts = [
      part('like', { allowed: false, remaining: 0, retryAfterMs: 12_001, reason: 'limit' }),
    ];
    const refused = summarize(refusedParts, false);
    for (const style of ['draft', 'legacy', 'both', false] as const) {
      expect(rateLimitHeaders(style, refused, refusedParts, periodOf)[0]).toEqual([
        'Retry-After',
        '13',
      ]);
    }
    expect(rateLimitHeaders('legacy', refused, refusedParts, periodOf)).toContainEqual([
      'X-RateLimit-Reset',
      '13',
    ]);
  });

  it('no figures when no policy is enforced, and none when headers are off', () => {
    expect(rateLimitHeaders('draft', decision, [], periodOf)).toEqual([]);
    expect(rateLimitHeaders(false, decision, admitted, periodOf)).toEqual([]);
  });

  it('states the quota and window of each response, also after another of the same policy', () => {
    const itemOf = (quota: Partial<PolicyDecision>, periodMs = 60_000) => {
      const parts = [part('plan', quota)];
      const headers = rateLimitHeaders('draft', summarize(parts, true), parts, () => periodMs);
      return headers[0]?.[1];
    };
    expect(itemOf({ limit: 10 })).toBe('"plan";q=10;w=60');
    expect(itemOf({ limit: 50 })).toBe('"plan";q=50;w=60');
    expect(itemOf({ limit: 50, granted: 5 })).toBe('"plan";q=55;w=60');
    expect(itemOf({ limit: 50, granted: 5 }, 3_600_000)).toBe('"plan";q=55;w=3600');
    expect(itemOf({ limit: 10 })).toBe('"plan";q=10;w=60');
  });
});
