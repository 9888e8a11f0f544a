import {
  foldWindow,
  hourOf,
  lastFoldable,
  parseField,
  sampledAt,
  TOP_PER_HOUR,
  type HourFields,
} from './traffic-profile.js';
import {
  DEFAULT_PROFILE_LIMITS,
  levelKey,
  type ProfileCount,
  type ProfileHour,
  type ProfileLimits,
  type ProfileRecord,
  type TrafficProfileStore,
} from './traffic-profile.store.js';

/** A level is lowered only this long after it last changed, as traffic-profile.lua does. */
const LOWER_AFTER_MS = 10_000;

interface OpenWindow {
  level: number;
  fields: Map<string, number>;
}

/** One (policy, window length)'s profile, as traffic-profile.lua keeps it in Redis. */
interface Profile {
  level: number;
  changed: number;
  folded: number;
  late: number;
  open: Map<number, OpenWindow>;
  hours: Map<number, { fields: HourFields; top: Map<string, number>; touched: number }>;
}

/** Without Redis, the profile lives in this process, kept as traffic-profile.lua keeps it. */
export class LocalTrafficProfile implements TrafficProfileStore {
  private readonly profiles = new Map<string, Profile>();

  constructor(readonly limits: ProfileLimits = DEFAULT_PROFILE_LIMITS) {}

  record(counts: readonly ProfileCount[], nowMs: number): Promise<Map<string, number>> {
    const touched = new Map<string, { profile: Profile; windowMs: number }>();
    for (const count of counts) {
      const name = levelKey(count.policy, count.windowMs);
      const profile = this.profileOf(name);
      touched.set(name, { profile, windowMs: count.windowMs });
      if (count.window <= profile.folded) {
        profile.late += count.count;
        continue;
      }
      let open = profile.open.get(count.window);
      if (open === undefined) {
        open = { level: profile.level, fields: new Map() };
        profile.open.set(count.window, open);
      }
      const parsed = parseField(count.field);
      if (parsed !== null && sampledAt(parsed.hash, open.level)) {
        open.fields.set(count.field, (open.fields.get(count.field) ?? 0) + count.count);
      }
    }
    const levels = new Map<string, number>();
    for (const [name, { profile, windowMs }] of touched) {
      levels.set(name, this.settle(profile, windowMs, nowMs));
    }
    return Promise.resolve(levels);
  }

  read(
    policy: string,
    windowMs: number,
    fromHour: number,
    toHour: number,
    nowMs: number,
  ): Promise<ProfileRecord> {
    const profile = this.profileOf(levelKey(policy, windowMs));
    const level = this.settle(profile, windowMs, nowMs);
    const hours: ProfileHour[] = [];
    for (let hour = fromHour; hour <= toHour; hour++) {
      const kept = profile.hours.get(hour);
      if (kept === undefined || nowMs - kept.touched >= this.limits.retentionMs) continue;
      const top = [...kept.top]
        .map(([member, count]) => ({ member, count }))
        .sort((a, b) => b.count - a.count || compareBytes(b.member, a.member));
      hours.push({ hour, fields: new Map(kept.fields), top });
    }
    return Promise.resolve({ level, late: profile.late, hours });
  }

  /** Samples the open windows down to the bound and folds those closed, as the Lua does. */
  private settle(profile: Profile, windowMs: number, nowMs: number): number {
    for (const open of profile.open.values()) {
      while (open.fields.size > this.limits.sampleBound) {
        open.level++;
        for (const field of open.fields.keys()) {
          const parsed = parseField(field);
          if (parsed === null || !sampledAt(parsed.hash, open.level)) open.fields.delete(field);
        }
      }
      if (open.level > profile.level) {
        profile.level = open.level;
        profile.changed = nowMs;
      }
    }
    const last = lastFoldable(nowMs, windowMs);
    for (const window of [...profile.open.keys()].sort((a, b) => a - b)) {
      if (window > last) continue;
      const open = profile.open.get(window) as OpenWindow;
      profile.open.delete(window);
      profile.folded = Math.max(profile.folded, window);
      const identifiers = [...open.fields.values()].filter((count) => count > 0).length;
      if (identifiers > 0) this.fold(profile, window, windowMs, open, nowMs);
      if (
        profile.level > 0 &&
        identifiers * 4 < this.limits.sampleBound &&
        nowMs - profile.changed >= LOWER_AFTER_MS
      ) {
        profile.level--;
        profile.changed = nowMs;
      }
    }
    for (const [hour, kept] of profile.hours) {
      if (nowMs - kept.touched >= this.limits.retentionMs) profile.hours.delete(hour);
    }
    return profile.level;
  }

  private fold(
    profile: Profile,
    window: number,
    windowMs: number,
    open: OpenWindow,
    nowMs: number,
  ): void {
    const hour = hourOf(window, windowMs);
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
      profile = { level: 0, changed: 0, folded: -1, late: 0, open: new Map(), hours: new Map() };
      this.profiles.set(name, profile);
    }
    return profile;
  }
}

function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
