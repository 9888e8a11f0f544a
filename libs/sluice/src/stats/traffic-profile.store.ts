import type { HourFields, ProfileWindows } from './traffic-profile.js';

/** What one instance counted for one identifier in one window since it last sent. */
export interface ProfileCount {
  /** The policy's name. */
  policy: string;
  /** The windows the policy is profiled in (traffic-profile.ts profileWindowsOf). */
  windows: ProfileWindows;
  /** The window (traffic-profile.ts windowAt). */
  window: number;
  /** The identifier's field (traffic-profile.ts fieldOf). */
  field: string;
  /** Requests counted. */
  count: number;
}

/** One hour of a policy's profile, as a store holds it. */
export interface ProfileHour {
  /** Its index: epoch ms / 3 600 000. */
  hour: number;
  /** Its histogram and totals (traffic-profile.ts HourFields). */
  fields: HourFields;
  /** Its busiest, `<tier>:<member>` → the most it made in one window, busiest first. */
  top: Array<{ member: string; count: number }>;
}

/** A policy's profile over some hours, as stored. */
export interface ProfileRecord {
  /** The level windows are sampled at now: one identifier in 2^level is kept. */
  level: number;
  /** Requests counted after their window had folded, left out. */
  late: number;
  /** The hours read that hold anything, in order. */
  hours: ProfileHour[];
}

/**
 * Who a (policy, window length)'s windows keep: one identifier in 2^level for windows opening now,
 * and a lower level announced for the windows from `nextFrom` on (-1 and -1: none).
 */
export interface ProfileSampling {
  /** The level windows opening now are sampled at. */
  level: number;
  /** The lower level announced, or -1. */
  nextLevel: number;
  /** The first window it applies to, or -1. */
  nextFrom: number;
}

/** How a profile is kept: the stated bounds of docs/algorithms.md, "Traffic profiles". */
export interface ProfileLimits {
  /** Most identifiers one window keeps before it is sampled. */
  sampleBound: number;
  /** How long an hour is kept, ms (one window more for windows over a day: hoursKeptMs). */
  retentionMs: number;
}

export const DEFAULT_PROFILE_LIMITS: ProfileLimits = {
  sampleBound: 1_000,
  retentionMs: 7 * 86_400_000,
};

/** The key a (policy, windows)'s level is reported under. */
export function levelKey(policy: string, windows: ProfileWindows): string {
  return `${policy}\u0000${windows.key}`;
}

/**
 * Where instances add up their counts per identifier and window, and the admin reads the
 * profile: Redis (traffic-profile.lua), or this process without Redis (the twin).
 */
export interface TrafficProfileStore {
  /** The bounds it keeps a profile in. */
  readonly limits: ProfileLimits;
  /**
   * Adds the counts, folds the windows that have closed by `nowMs`, and answers how each
   * (policy, window length) samples now (levelKey).
   */
  record(counts: readonly ProfileCount[], nowMs: number): Promise<Map<string, ProfileSampling>>;
  /** The hours `fromHour` to `toHour` of a policy's profile, what has closed by `nowMs` folded. */
  read(
    policy: string,
    windows: ProfileWindows,
    fromHour: number,
    toHour: number,
    nowMs: number,
  ): Promise<ProfileRecord>;
}
