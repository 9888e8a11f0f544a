import type { RateParams, RateSpec } from './algorithm.types.js';
import { ceilDiv, idiv } from './integer-math.js';

export function rateParams(spec: RateSpec): RateParams {
  const period = spec.periodMs * 1000;
  // Rounded up, so a rate never exceeds limit per period.
  const interval = ceilDiv(period, spec.limit);
  const burst = spec.burst ?? spec.limit;
  const segments = spec.segments ?? 1;
  return {
    limit: spec.limit,
    period,
    burst,
    interval,
    segments,
    segment: idiv(period, segments),
    // By default a burst of exactly `burst` passes at once: the last of it waits burst - 1 intervals.
    maxDelay: spec.maxDelayMs === null ? (burst - 1) * interval : spec.maxDelayMs * 1000,
  };
}
