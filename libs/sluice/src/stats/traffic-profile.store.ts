import type { HourFields } from './traffic-profile.js';

/** What one instance counted for one identifier in one window since it last sent. */
export interface ProfileCount {
  /** The policy's name. */
  policy: string;
  /** The policy's window length, ms (traffic-profile.ts windowMsOf). */
  windowMs: number;
  /** The window's index: its start / windowMs. */
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

/** How a profile is kept: the stated bounds of docs/algorithms.md, "Traffic profiles". */
export interface ProfileLimits {
  /** Most identifiers one window keeps before it is sampled. */
  sampleBound: number;
  /** How long an hour is kept, ms. */
  retentionMs: number;
}

export const DEFAULT_PROFILE_LIMITS: ProfileLimits = {
  sampleBound: 2_000,
  retentionMs: 7 * 86_400_000,
};

/** The key a (policy, window length)'s level is reported under. */
export function levelKey(policy: string, windowMs: number): string {
  return `${policy}\u0000${windowMs}`;
}

/**
 * Where instances add up their counts per identifier and window, and the admin reads the
 * profile: Redis (traffic-profile.lua), or this process without Redis (the twin).
 */
export interface TrafficProfileStore {
  /** The bounds it keeps a profile in. */
  readonly limits: ProfileLimits;
  /**
   * Adds the counts, folds the windows that have closed by `nowMs`, and answers the level each
   * (policy, window length) now samples at (levelKey).
   */
  record(counts: readonly ProfileCount[], nowMs: number): Promise<Map<string, number>>;
  /** The hours `fromHour` to `toHour` of a policy's profile, what has closed by `nowMs` folded. */
  read(
    policy: string,
    windowMs: number,
    fromHour: number,
    toHour: number,
    nowMs: number,
  ): Promise<ProfileRecord>;
}
