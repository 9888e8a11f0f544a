import type { PolicyRegistry } from '../policy/policy.registry.js';
import { fieldOf, identifierHash, sampledAt, windowMsOf } from './traffic-profile.js';
import { levelKey, type ProfileCount, type TrafficProfileStore } from './traffic-profile.store.js';
import { memberOf } from './identifier-stats.store.js';

/** Windows counted past their end before a flush, kept at most; more are left out. */
const CARRIED_AT_MOST = 50_000;

/** What an identifier tally entry holds for the profile: its count in the window it is in. */
export interface ProfiledEntry {
  /** As the identifier stats name it (IdentifierCount): the shown identifier, a cut one's key. */
  identifier: string;
  key: string | undefined;
  /** The window's index, or -1 before the first request. */
  window: number;
  /** Requests in that window since the last flush. */
  inWindow: number;
  /** The tier its requests were decided under ('' for none). */
  tier: string;
  /** Its hash and field (traffic-profile.ts), made at its first flush. */
  hash: number | undefined;
  field: string | undefined;
}

/**
 * Counts each identifier's requests per window of its policy's period for the traffic profile
 * (docs/algorithms.md, "Traffic profiles"), on the identifier tally's entries: a request costs a
 * division and an increment; once a second the sampled identifiers' counts go to the store.
 */
export class ProfileCounter {
  /** The level each (policy, window length) samples at, as the store last said (levelKey). */
  private readonly levels = new Map<string, number>();
  /** Policy → its window length, ms (0: not profiled), for this flush's second. */
  private windows = new Map<string, number>();
  /** Counts of windows that ended before a flush took them. */
  private carried: ProfileCount[] = [];
  private pending: ProfileCount[] = [];

  constructor(
    readonly store: TrafficProfileStore,
    private readonly policies: PolicyRegistry,
  ) {}

  /** The window length a policy is profiled in; 0 for one not profiled (concurrency, unknown). */
  windowMsOf(policy: string): number {
    let windowMs = this.windows.get(policy);
    if (windowMs === undefined) {
      const found = this.policies.get(policy);
      windowMs =
        found === undefined || found.algorithm === 'concurrency' ? 0 : windowMsOf(found.periodMs);
      this.windows.set(policy, windowMs);
    }
    return windowMs;
  }

  /** Counts one request of `entry` at `nowMs` (ms) under `tier`. */
  count(policy: string, keyKind: string, entry: ProfiledEntry, nowMs: number, tier: string): void {
    const windowMs = this.windowMsOf(policy);
    if (windowMs === 0) return;
    const window = Math.floor(nowMs / windowMs);
    if (window !== entry.window || tier !== entry.tier) {
      if (entry.inWindow !== 0) this.carry(policy, keyKind, entry, windowMs);
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
  take(policy: string, keyKind: string, entry: ProfiledEntry): void {
    if (entry.inWindow === 0) return;
    const windowMs = this.windowMsOf(policy);
    if (windowMs !== 0) this.offer(this.pending, policy, keyKind, entry, windowMs);
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
    const levels = await this.store.record(counts, nowMs);
    for (const [name, level] of levels) this.levels.set(name, level);
  }

  private carry(policy: string, keyKind: string, entry: ProfiledEntry, windowMs: number): void {
    if (this.carried.length < CARRIED_AT_MOST) {
      this.offer(this.carried, policy, keyKind, entry, windowMs);
    }
  }

  /**
   * Adds the entry's count to `into` when a window may keep its identifier: sampled one level
   * below the store's, since a level lowers for windows that open before this instance hears of
   * it (the store drops the rest).
   */
  private offer(
    into: ProfileCount[],
    policy: string,
    keyKind: string,
    entry: ProfiledEntry,
    windowMs: number,
  ): void {
    if (entry.hash === undefined) {
      entry.hash = identifierHash(
        memberOf({ keyKind, identifier: entry.identifier, key: entry.key }),
      );
    }
    const hash = entry.hash;
    const level = this.levels.get(levelKey(policy, windowMs)) ?? 0;
    if (!sampledAt(hash, Math.max(0, level - 1))) return;
    const field = (entry.field ??= fieldOf(
      hash,
      entry.tier,
      memberOf({ keyKind, identifier: entry.identifier, key: entry.key }),
    ));
    into.push({ policy, windowMs, window: entry.window, field, count: entry.inWindow });
  }
}
