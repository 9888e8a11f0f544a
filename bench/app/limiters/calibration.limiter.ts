import { Injectable, type CanActivate } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import type { Limiter } from './limiter.types.js';

/**
 * A global guard that limits nothing: it spends `spendUs` microseconds of CPU, then lets the
 * request through after one await, as an async guard does. Its rows show what a guard of known
 * cost gets on the bench's machine, the scale the limiters' ratios to bare read against
 * (docs/benchmarks.md, "Application: where the time goes").
 */
export function calibrationLimiter(spendUs: number): Limiter {
  const spendNs = BigInt(Math.round(spendUs * 1000));

  @Injectable()
  class CalibrationGuard implements CanActivate {
    async canActivate(): Promise<boolean> {
      // A busy wait rather than a computation, so the cost is the same on every machine.
      const until = process.hrtime.bigint() + spendNs;
      while (spendNs > 0n && process.hrtime.bigint() < until);
      await Promise.resolve();
      return true;
    }
  }

  return { metadata: { providers: [{ provide: APP_GUARD, useClass: CalibrationGuard }] } };
}
