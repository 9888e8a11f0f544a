/** Metadata written by @Throttle(): the policy names on a handler or class, and code defaults. */
export const THROTTLE_METADATA = 'sluice:throttle';
/** Metadata written by @SkipThrottle(). */
export const SKIP_THROTTLE_METADATA = 'sluice:skip-throttle';
/** The microsecond clock the guard and the block cache read; tests may provide their own. */
export const SLUICE_CLOCK = Symbol('SLUICE_CLOCK');
/** The store decisions are made in: Redis when configured, else the in-memory store. */
export const SLUICE_STORE = Symbol('SLUICE_STORE');
