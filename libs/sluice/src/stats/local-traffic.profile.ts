import {
  foldWindow,
  hourOf,
  hoursKeptMs,
  hoursToRead,
  lastFoldable,
  longestWindowMs,
  LOWER_NOTICE_MS,
  noticedFrom,
  parseField,
  sampledAt,
  TOP_PER_HOUR,
  windowAt,
  windowBound,
  type HourFields,
  type ProfileWindows,
} from './traffic-profile.js';
import {
  DEFAULT_PROFILE_LIMITS,
  levelKey,
  type ProfileCount,
  type ProfileHour,
  type ProfileLimits,
  type ProfileRecord,
  type ProfileSampling,
  type TrafficProfileStore,
} from './traffic-profile.store.js';

/**
 * A level is lowered only this long after it last changed, for windows that open LOWER_NOTICE_MS
 * after it is announced, as traffic-profile.lua does.
 */
const LOWER_AFTER_MS = 10_000;

interface OpenWindow {
  level: number;
  fields: Map<string, number>;
}

/** One (policy, window length)'s profile, as traffic-profile.lua keeps it in Redis. */
interface Profile {
  level: number;
  changed: number;
  /** A lower level announced for the windows from nextFrom on (-1: none). */
  nextLevel: number;
  nextFrom: number;
  folded: number;
  late: number;
  open: Map<number, OpenWindow>;
  hours: Map<number, { fields: HourFields; top: Map<string, number>; touched: number }>;
}

/** Without Redis, the profile lives in this process, kept as traffic-profile.lua keeps it. */
export class LocalTrafficProfile implements TrafficProfileStore {
  private readonly profiles = new Map<string, Profile>();

  constructor(readonly limits: ProfileLimits = DEFAULT_PROFILE_LIMITS) {}

  record(counts: readonly ProfileCount[], nowMs: number): Promise<Map<string, ProfileSampling>> {
    const touched = new Map<
      string,
      { profile: Profile; windows: ProfileWindows; opened: Set<number> }
    >();
    for (const count of counts) {
      const name = levelKey(count.policy, count.windows);
      let touch = touched.get(name);
      if (touch === undefined) {
        const profile = this.profileOf(name);
        promote(profile, count.windows, nowMs);
        touch = { profile, windows: count.windows, opened: new Set() };
        touched.set(name, touch);
      }
      const profile = touch.profile;
      if (count.window <= profile.folded) {
        profile.late += count.count;
        continue;
      }
      touch.opened.add(count.window);
      let open = profile.open.get(count.window);
      if (open === undefined) {
        const announced = profile.nextFrom >= 0 && count.window >= profile.nextFrom;
        open = { level: announced ? profile.nextLevel : profile.level, fields: new Map() };
        profile.open.set(count.window, open);
      }
      const parsed = parseField(count.field);
      if (parsed !== null && sampledAt(parsed.hash, open.level)) {
        open.fields.set(count.field, (open.fields.get(count.field) ?? 0) + count.count);
      }
    }
    const levels = new Map<string, ProfileSampling>();
    for (const [name, { profile, windows, opened }] of touched) {
      this.settle(profile, windows, nowMs, opened);
      levels.set(name, samplingOf(profile));
    }
    return Promise.resolve(levels);
  }

  read(
    policy: string,
    windows: ProfileWindows,
    fromHour: number,
    toHour: number,
    nowMs: number,
  ): Promise<ProfileRecord> {
    const profile = this.profileOf(levelKey(policy, windows));
    promote(profile, windows, nowMs);
    this.settle(profile, windows, nowMs, new Set());
    const level = profile.level;
    const keptMs = hoursKeptMs(windows, this.limits.retentionMs);
    const hours: ProfileHour[] = [];
    for (const hour of hoursToRead(windows, fromHour, toHour)) {
      const kept = profile.hours.get(hour);
      if (kept === undefined || nowMs - kept.touched >= keptMs) continue;
      const top = [...kept.top]
        .map(([member, count]) => ({ member, count }))
        .sort((a, b) => b.count - a.count || compareBytes(b.member, a.member));
      hours.push({ hour, fields: new Map(kept.fields), top });
    }
    return Promise.resolve({ level, late: profile.late, hours });
  }

  /**
   * Samples the windows this call touched down to the bound and folds those closed, as the Lua
   * does.
   */
  private settle(
    profile: Profile,
    windows: ProfileWindows,
    nowMs: number,
    touched: Set<number>,
  ): void {
    const bound = windowBound(this.limits.sampleBound, longestWindowMs(windows));
    for (const window of touched) {
      const open = profile.open.get(window) as OpenWindow;
      while (open.fields.size > bound) {
        open.level++;
        for (const field of open.fields.keys()) {
          const parsed = parseField(field);
          if (parsed === null || !sampledAt(parsed.hash, open.level)) open.fields.delete(field);
        }
      }
      if (open.level > profile.level) {
        profile.level = open.level;
        profile.changed = nowMs;
        profile.nextLevel = -1;
        profile.nextFrom = -1;
      }
    }
    const last = lastFoldable(windows, nowMs);
    for (const window of [...profile.open.keys()].sort((a, b) => a - b)) {
      if (window > last) continue;
      const open = profile.open.get(window) as OpenWindow;
      profile.open.delete(window);
      profile.folded = Math.max(profile.folded, window);
      const identifiers = [...open.fields.values()].filter((count) => count > 0).length;
      if (identifiers > 0) this.fold(profile, hourOf(windows, window), open, nowMs);
      if (
        profile.level > 0 &&
        profile.nextFrom < 0 &&
        identifiers * 4 < bound &&
        nowMs - profile.changed >= LOWER_AFTER_MS
      ) {
        profile.nextLevel = profile.level - 1;
        profile.nextFrom = noticedFrom(windows, nowMs, LOWER_NOTICE_MS);
        profile.changed = nowMs;
      }
    }
    const keptMs = hoursKeptMs(windows, this.limits.retentionMs);
    for (const [hour, kept] of profile.hours) {
      if (nowMs - kept.touched >= keptMs) profile.hours.delete(hour);
    }
  }

  private fold(profile: Profile, hour: number, open: OpenWindow, nowMs: number): void {
    let kept = profile.hours.get(hour);
    if (kept === undefined) {
      kept = { fields: new Map(), top: new Map(), touched: nowMs };
      profile.hours.set(hour, kept);
    }
    kept.touched = nowMs;
    // Only the window's busiest can enter the hour's top, as in the Lua.
    const offered = new Map<string, number>();
    foldWindow(open.fields, open.level, kept.fields, offered);
    const busiest = [...offered]
      .sort((a, b) => b[1] - a[1] || compareBytes(a[0], b[0]))
      .slice(0, TOP_PER_HOUR);
    for (const [member, count] of busiest) {
      if (count > (kept.top.get(member) ?? 0)) kept.top.set(member, count);
    }
    // Redis drops the lowest ranks: the smallest count, and among equals the first in byte order.
    const ranked = [...kept.top].sort((a, b) => a[1] - b[1] || compareBytes(a[0], b[0]));
    for (const [member] of ranked.slice(0, Math.max(0, ranked.length - TOP_PER_HOUR))) {
      kept.top.delete(member);
    }
  }

  private profileOf(name: string): Profile {
    let profile = this.profiles.get(name);
    if (profile === undefined) {
      profile = {
        level: 0,
        changed: 0,
        nextLevel: -1,
        nextFrom: -1,
        folded: -1,
        late: 0,
        open: new Map(),
        hours: new Map(),
      };
      this.profiles.set(name, profile);
    }
    return profile;
  }
}

/** The announced lower level takes over once its first window has come. */
function promote(profile: Profile, windows: ProfileWindows, nowMs: number): void {
  if (profile.nextFrom >= 0 && windowAt(windows, nowMs) >= profile.nextFrom) {
    profile.level = profile.nextLevel;
    profile.nextLevel = -1;
    profile.nextFrom = -1;
  }
}

function samplingOf(profile: Profile): ProfileSampling {
  return { level: profile.level, nextLevel: profile.nextLevel, nextFrom: profile.nextFrom };
}

function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
