/** SluiceModule's options, as forRoot or forRootAsync gave them. */
export const SLUICE_OPTIONS = Symbol('SLUICE_OPTIONS');
/** Metadata written by @Throttle(): the policy names on a handler or class, and code defaults. */
export const THROTTLE_METADATA = 'sluice:throttle';
/** Metadata written by @SkipThrottle(). */
export const SKIP_THROTTLE_METADATA = 'sluice:skip-throttle';
export const THROTTLE_TIER_METADATA = 'sluice:throttle-tier';
/** The microsecond clock cached blocks are timed against; tests may provide their own. */
export const SLUICE_CLOCK = Symbol('SLUICE_CLOCK');
/** SluiceGuard under another name, so the module definition can register it without importing it. */
export const GLOBAL_GUARD = Symbol('SLUICE_GLOBAL_GUARD');
/** Where policy snapshots, change notices and heartbeats travel (Redis, or this process). */
export const POLICY_CHANNEL = Symbol('SLUICE_POLICY_CHANNEL');
/** Where penalty events are appended for the admin (a Redis Stream, or this process). */
export const PENALTY_STREAM = Symbol('SLUICE_PENALTY_STREAM');
/** Where per-identifier traffic is added up for the admin (Redis, or this process). */
export const IDENTIFIER_STATS = Symbol('SLUICE_IDENTIFIER_STATS');
/**
 * Where each policy's traffic profile is added up (Redis, or this process), or null when the
 * module's `trafficProfile` is false.
 */
export const TRAFFIC_PROFILE = Symbol('SLUICE_TRAFFIC_PROFILE');
/**
 * Where each policy's recent requests are recorded for replay (Redis, or this process), or null
 * when the module keeps no traffic profile or `trafficProfile.replayRecords` is 0.
 */
export const REPLAY_STORE = Symbol('SLUICE_REPLAY_STORE');
/** Where per-policy decision counts are added up each second for the admin (Redis, or this process). */
export const DECISION_STATS = Symbol('SLUICE_DECISION_STATS');
/** Where what the list entries matched is added up for the admin (Redis, or this process). */
export const LIST_HITS = Symbol('SLUICE_LIST_HITS');
