import type { PolicyRegistry } from '../policy/policy.registry.js';
import { periodAt } from '../clock/calendar.js';
import {
  fieldOf,
  identifierHash,
  profileWindowsOf,
  sampledAt,
  type ProfileWindows,
} from './traffic-profile.js';
import {
  levelKey,
  type ProfileCount,
  type ProfileSampling,
  type TrafficProfileStore,
} from './traffic-profile.store.js';
import { memberOf } from './identifier-stats.store.js';

/** Windows counted past their end before a flush, kept at most; more are left out. */
const CARRIED_AT_MOST = 50_000;
/**
 * How long what the store said about sampling holds: less than the notice a lower level is
 * announced with (2 s, traffic-profile.lua), so no count of a window that opens at it is left
 * out on an old word. Past it, every count is sent and the store's answer heard again.
 */
const HEARD_FOR_MS = 1_500;

/** What an identifier tally entry holds for the profile: its count in the window it is in. */
export interface ProfiledEntry {
  /** As the identifier stats name it (IdentifierCount): the shown identifier, a cut one's key. */
  identifier: string;
  key: string | undefined;
  /** The window (traffic-profile.ts windowAt), or -1 before the first request. */
  window: number;
  /** Requests in that window since the last flush. */
  inWindow: number;
  /** The tier its requests were decided under ('' for none). */
  tier: string;
  /** Its member (memberOf), hash and field (traffic-profile.ts), made at its first flush. */
  member: string | undefined;
  hash: number | undefined;
  field: string | undefined;
}

/** A policy's windows for this flush's second, with the calendar period last found. */
interface PolicyWindows {
  windows: ProfileWindows;
  /** The key the store's word on its sampling is kept under (levelKey), made once. */
  levelKey: string;
  /** The calendar period last looked up (a calendar's windows only): its start and end. */
  start: number;
  end: number;
}

/**
 * Counts each identifier's requests per window of its policy's period for the traffic profile
 * (docs/algorithms.md, "Traffic profiles"), on the identifier tally's entries: a request costs a
 * division (a calendar's: two comparisons) and an increment; once a second the sampled
 * identifiers' counts go to the store.
 */
export class ProfileCounter {
  /** How each (policy, window length) samples, as the store last said (levelKey), and when. */
  private readonly sampling = new Map<string, { heardAt: number; sampling: ProfileSampling }>();
  /** The time of this flush, ms. */
  private nowMs = 0;
  /** Policy → its windows (null: not profiled), for this flush's second. */
  private windows = new Map<string, PolicyWindows | null>();
  /** Counts of windows that ended before a flush took them. */
  private carried: ProfileCount[] = [];
  private pending: ProfileCount[] = [];

  constructor(
    readonly store: TrafficProfileStore,
    private readonly policies: PolicyRegistry,
  ) {}

  /** Counts one request of `entry` at `nowMs` (ms) under `tier`. */
  count(policy: string, keyKind: string, entry: ProfiledEntry, nowMs: number, tier: string): void {
    this.nowMs = nowMs;
    const known = this.policyWindows(policy);
    if (known === null) return;
    const windows = known.windows;
    let window: number;
    if (windows.kind === 'fixed') window = Math.floor(nowMs / windows.windowMs);
    else {
      // A calendar period is looked up (time zones, Intl) only when the clock leaves the last.
      if (nowMs < known.start || nowMs >= known.end) {
        const period = periodAt(nowMs, windows.calendar);
        known.start = period.start;
        known.end = period.end;
      }
      window = known.end;
    }
    if (window !== entry.window || tier !== entry.tier) {
      if (entry.inWindow !== 0) this.carry(policy, keyKind, entry, known);
      entry.window = window;
      entry.inWindow = 0;
      if (tier !== entry.tier) {
        entry.tier = tier;
        entry.field = undefined;
      }
    }
    entry.inWindow++;
  }

  /** Takes what `entry` counted since the last flush, when its identifier is sampled. */
  take(policy: string, keyKind: string, entry: ProfiledEntry, nowMs: number): void {
    this.nowMs = nowMs;
    if (entry.inWindow === 0) return;
    const known = this.policyWindows(policy);
    if (known !== null) this.offer(this.pending, policy, keyKind, entry, known);
    entry.inWindow = 0;
  }

  /**
   * Sends what was taken and carried; the levels the store answers decide who is sampled from the
   * next flush on. Policies are looked up again each second, so a changed period applies.
   */
  async send(nowMs: number): Promise<void> {
    const counts = this.carried.length === 0 ? this.pending : [...this.carried, ...this.pending];
    this.carried = [];
    this.pending = [];
    this.windows = new Map();
    if (counts.length === 0) return;
    const answered = await this.store.record(counts, nowMs);
    for (const [name, sampling] of answered) this.sampling.set(name, { heardAt: nowMs, sampling });
  }

  /**
   * Whether the profile keeps the entry's identifier in its window now, as far as this
   * instance knows: the identifiers the replay records (stats/replay.recorder.ts).
   */
  keeps(policy: string, keyKind: string, entry: ProfiledEntry): boolean {
    const known = this.policyWindows(policy);
    if (known === null) return false;
    entry.hash ??= identifierHash(memberOfEntry(keyKind, entry));
    return sampledAt(entry.hash, this.levelOf(known, entry.window));
  }

  /** A policy's windows for this flush's second; null for one not profiled (concurrency). */
  private policyWindows(policy: string): PolicyWindows | null {
    let known = this.windows.get(policy);
    if (known === undefined) {
      const found = this.policies.get(policy);
      known =
        found === undefined || found.algorithm === 'concurrency'
          ? null
          : windowsWithKey(policy, profileWindowsOf(found));
      this.windows.set(policy, known);
    }
    return known;
  }

  /** The level a window keeps identifiers at, as far as this instance knows it for sure. */
  private levelOf(known: PolicyWindows, window: number): number {
    const heard = this.sampling.get(known.levelKey);
    if (heard === undefined || this.nowMs - heard.heardAt > HEARD_FOR_MS) return 0;
    const { level, nextLevel, nextFrom } = heard.sampling;
    return nextFrom >= 0 && window >= nextFrom ? nextLevel : level;
  }

  private carry(policy: string, keyKind: string, entry: ProfiledEntry, known: PolicyWindows): void {
    if (this.carried.length < CARRIED_AT_MOST) {
      this.offer(this.carried, policy, keyKind, entry, known);
    }
  }

  /**
   * Adds the entry's count to `into` when its window may keep its identifier: the store drops
   * what a window does not keep, so this leaves out only what it knows no window keeps.
   */
  private offer(
    into: ProfileCount[],
    policy: string,
    keyKind: string,
    entry: ProfiledEntry,
    known: PolicyWindows,
  ): void {
    const hash = (entry.hash ??= identifierHash(memberOfEntry(keyKind, entry)));
    if (!sampledAt(hash, this.levelOf(known, entry.window))) return;
    const field = (entry.field ??= fieldOf(hash, entry.tier, memberOfEntry(keyKind, entry)));
    into.push({
      policy,
      windows: known.windows,
      window: entry.window,
      field,
      count: entry.inWindow,
    });
  }
}

/** The entry's member, made once. */
export function memberOfEntry(keyKind: string, entry: ProfiledEntry): string {
  return (entry.member ??= memberOf({ keyKind, identifier: entry.identifier, key: entry.key }));
}

function windowsWithKey(policy: string, windows: ProfileWindows): PolicyWindows {
  return { windows, levelKey: levelKey(policy, windows), start: 0, end: 0 };
}
