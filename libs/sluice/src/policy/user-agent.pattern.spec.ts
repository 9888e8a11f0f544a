import { describe, expect, it } from 'vitest';
import { PolicyMatcher } from '../http/policy.matcher.js';
import { parsePolicy } from './policy.schema.js';
import { PolicyValidationError } from './policy-validation.error.js';
import { compileUserAgentPattern } from './user-agent.pattern.js';

const crawlers = (userAgent: string) =>
  parsePolicy({
    name: 'crawlers',
    algorithm: 'fixed-window',
    limit: 10,
    periodMs: 60_000,
    match: { userAgent },
  });

describe('match.userAgent', () => {
  it('matches case-insensitively anywhere in the header, as before', () => {
    const pattern = compileUserAgentPattern('bot|crawler|spider');
    expect(pattern.test('Mozilla/5.0 (compatible; Googlebot/2.1)')).toBe(true);
    expect(pattern.test('Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0')).toBe(false);
  });

  it('decides a catastrophic pattern on a 10 KB User-Agent within 1 ms (median of 21)', () => {
    const matcher = new PolicyMatcher();
    const policy = crawlers('^(a+)+$');
    // The header is cut to 512 characters before matching; the '!' within them defeats the pattern.
    const request = { headers: { 'user-agent': `${'a'.repeat(500)}!${'a'.repeat(9_739)}` } };
    const times: number[] = [];
    for (let run = 0; run < 21; run++) {
      const started = performance.now();
      expect(matcher.applicable([policy], request)).toEqual([]);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    // On JavaScript's backtracking engine the same call doubles with each 'a' (about 1 s at 28).
    expect(times[10]).toBeLessThan(1);
  });

  it.each(['(?=bot)bot', '(bot)\\1', '(?<!x)bot'])(
    'refuses %j, which needs backtracking, naming match.userAgent',
    (pattern) => {
      const refusal = (() => {
        try {
          crawlers(pattern);
        } catch (error) {
          return error;
        }
      })();
      expect(refusal).toBeInstanceOf(PolicyValidationError);
      expect((refusal as PolicyValidationError).issues.map((issue) => issue.field)).toEqual([
        'match.userAgent',
      ]);
    },
  );
});
