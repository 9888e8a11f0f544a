import type { Policy } from '../policy/policy.types.js';

/**
 * Charges settled after the response (docs/guide.md, "Charges settled after the response"): what
 * a handler reports it used, by request, and the units a request of a `usage` policy comes to.
 */
const reported = new WeakMap<object, number>();

/** The most one report may say: a policy's maxCost caps what is charged anyway. */
const MOST_REPORTED = 1_000_000_000;

/** Records what the request used, for its policies with `usage`; the last report counts. */
export function reportUsage(request: unknown, units: number): void {
  if (!Number.isSafeInteger(units) || units < 0 || units > MOST_REPORTED) {
    throw new RangeError(`units: must be an integer from 0 to ${MOST_REPORTED}, got ${units}`);
  }
  if (typeof request !== 'object' || request === null) {
    throw new TypeError('request: must be the request object the handler received');
  }
  reported.set(request, units);
}

/**
 * What the handler reported for the request, else what the app's `usageOf` makes of the
 * response, else what its header says; undefined: nothing, or not a count of units.
 */
export function usedUnits(
  policy: Policy,
  request: unknown,
  res: unknown,
  usageOf?: (policy: string, request: unknown, response: unknown) => number | undefined,
): number | undefined {
  if (typeof request === 'object' && request !== null) {
    const units = reported.get(request);
    if (units !== undefined) return units;
  }
  if (usageOf !== undefined) {
    const units = usageOf(policy.name, request, res);
    if (units !== undefined) return Number.isSafeInteger(units) && units >= 0 ? units : undefined;
  }
  const header = policy.usage?.header;
  if (header === undefined || header === null) return undefined;
  const value = (res as { getHeader?: (name: string) => unknown } | undefined)?.getHeader?.(header);
  const text = Array.isArray(value) ? String(value[0]) : value;
  if (typeof text !== 'string' && typeof text !== 'number') return undefined;
  const units = Number(text);
  return Number.isSafeInteger(units) && units >= 0 ? units : undefined;
}

/**
 * How an admitted request ended, for its settlement: answered (below 400), failed (400 or more,
 * a resolver's error), or left (its client went away before the answer was done).
 */
export type Ending = 'answered' | 'failed' | 'left';

/**
 * The units to charge (positive) or give back (negative) for an admitted request of `policy`,
 * beyond the units `reserved` at admission (the request's cost, else the policy's): what was used, capped at maxCost; a failed request
 * refunds the reservation unless the policy keeps it; a request whose client left is charged what
 * it reported up to then, at least its reservation (a stream cut short is not free); a request
 * that reported nothing keeps the reservation (docs/algorithms.md, "Charges settled after the
 * response").
 */
export function settlement(
  policy: Policy,
  ending: Ending,
  used: number | undefined,
  reserved: number = policy.cost,
): number {
  const usage = policy.usage;
  if (usage === null) return 0;
  if (ending === 'failed') return usage.onFailure === 'refund' ? -reserved : 0;
  if (used === undefined) return 0;
  const charged = Math.min(used, usage.maxCost);
  return (ending === 'left' ? Math.max(charged, reserved) : charged) - reserved;
}
