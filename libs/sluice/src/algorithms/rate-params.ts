import type { RateParams, RateSpec } from './algorithm.types.js';
import { ceilDiv, idiv } from './integer-math.js';

export function rateParams(spec: RateSpec): RateParams {
  const period = spec.periodMs * 1000;
  // Rounded up, so a rate never exceeds limit per period.
  const interval = ceilDiv(period, spec.limit);
  const burst = spec.burst ?? spec.limit;
  const segments = spec.segments ?? 1;
  const params: RateParams = {
    limit: spec.limit,
    period,
    burst,
    interval,
    segments,
    segment: idiv(period, segments),
    // By default a burst of exactly `burst` passes at once: the last of it waits burst - 1 intervals.
    maxDelay: spec.maxDelayMs === null ? (burst - 1) * interval : spec.maxDelayMs * 1000,
  };
  const calendar = spec.calendar;
  if (calendar !== undefined) {
    params.calendar = {
      start: calendar.start * 1000,
      finish: calendar.end * 1000,
      next: calendar.next * 1000,
    };
  }
  return params;
}
