import { Logger, type ExecutionContext } from '@nestjs/common';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../clock/clock.js';
import { TierResolver } from './tier.resolver.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** The warnings Sluice's logger wrote while `run` ran. */
async function warningsOf(run: (clock: ManualClock) => Promise<unknown>): Promise<string[]> {
  const warnings: string[] = [];
  vi.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => {
    warnings.push(String(message));
  });
  await run(new ManualClock(1_800_000_000_000_000));
  return warnings;
}

const context = {} as ExecutionContext;
const never = () => new Promise<never>(() => undefined);

describe('TierResolver', () => {
  it("names the identifier's lookup when it is the one that failed, not the request's", async () => {
    const warnings = await warningsOf(async (clock) => {
      const tiers = new TierResolver(
        { resolve: () => 'pro', ofIdentifier: never, timeoutMs: 5 },
        clock.now,
      );
      expect(await tiers.ofIdentifier('pro-demo-1', 'header:x-api-key')).toEqual({
        failure: 'tiers.ofIdentifier: no answer within 5 ms',
      });
      expect(tiers.resolve({}, context)).toBe('pro');
    });
    expect(warnings).toEqual([
      "tiers.ofIdentifier failed, deciding at the policies' own rates: no answer within 5 ms",
    ]);
  });

  it("names the request's lookup when it fails", async () => {
    const warnings = await warningsOf(async (clock) => {
      const tiers = new TierResolver({ resolve: never, timeoutMs: 5 }, clock.now);
      expect(await tiers.resolve({}, context)).toBeUndefined();
    });
    expect(warnings).toEqual([
      "tiers.resolve failed, deciding at the policies' own rates: no answer within 5 ms",
    ]);
  });
});
