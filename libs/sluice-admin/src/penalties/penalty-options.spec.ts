import { describe, expect, it } from 'vitest';
import { retentionDays } from './expiry.sweeper.js';
import { claimIdleMs } from './penalty.recorder.js';

describe("the admin's penalty options", () => {
  it('take their defaults when unset and a value in range as it is', () => {
    expect([retentionDays(undefined), retentionDays(1), retentionDays(3650)]).toEqual([
      90, 1, 3650,
    ]);
    expect([claimIdleMs(undefined), claimIdleMs(100), claimIdleMs(86_400_000)]).toEqual([
      30_000, 100, 86_400_000,
    ]);
  });

  it.each([0, 99, -5, 2.5, 86_400_001, '30000', null, Number.NaN])(
    'refuse claimIdleMs %j, naming the option',
    (value) => {
      expect(() => claimIdleMs(value)).toThrow(
        `SluiceAdminModule options.penalties.claimIdleMs: must be an integer from 100 to 86400000 (ms), got ${JSON.stringify(value)}`,
      );
    },
  );

  it.each([0, 3651, 1.5, '90', null])('refuse retentionDays %j, naming the option', (value) => {
    expect(() => retentionDays(value)).toThrow(
      'SluiceAdminModule options.penalties.retentionDays: must be an integer from 1 to 3650',
    );
  });
});
