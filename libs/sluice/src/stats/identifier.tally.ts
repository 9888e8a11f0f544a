import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type BeforeApplicationShutdown,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import type { Decision } from '../engine/decision.js';
import type { Clock } from '../clock/clock.js';
import {
  IDENTIFIER_STATS,
  REPLAY_STORE,
  SLUICE_CLOCK,
  TRAFFIC_PROFILE,
} from '../config/sluice.tokens.js';
import { PolicyRegistry } from '../policy/policy.registry.js';
import { ThrottledLogger } from '../logging/throttled.logger.js';
import { PeriodicTask } from '../clock/periodic.task.js';
import { getOrAdd, newMap } from '../collections/get-or-add.js';
import { displayForm, keyOfCut } from '../keys/identifier.js';
import { candidateStatsName } from './decision-outcome.js';
import type { IdentifierCount, IdentifierStatsStore } from './identifier-stats.store.js';
import { ProfileCounter, type ProfiledEntry } from './profile.counter.js';
import type { TrafficProfileStore } from './traffic-profile.store.js';
import { ReplayRecorder } from './replay.recorder.js';
import type { ReplayStore } from './replay.store.js';

const FLUSH_EVERY_MS = 1_000;
/** Per policy and flush, only the busiest go to the store: its work follows policies, not traffic. */
const SENT_PER_POLICY = 100;
/** New (policy, identifier) pairs counted per second; more are left out until the flush. */
const TRACKED_PER_FLUSH = 50_000;
/**
 * Entries outlive a flush while there are at most this many, so an identifier that comes back
 * within a few seconds (IDLE_FLUSHES_KEPT) is counted without a new entry; more, and a flush
 * drops them all. The tally holds at most this many plus TRACKED_PER_FLUSH entries.
 */
const KEPT_AT_MOST = 20_000;
const IDLE_FLUSHES_KEPT = 4;
const LOG_EVERY_MS = 60_000;

/**
 * An identifier's counts since the last flush, how many flushes found it idle, and its count in
 * its policy's window for the traffic profile.
 */
interface Entry extends ProfiledEntry {
  passed: number;
  rejected: number;
  lastSeen: number;
  idle: number;
}

/**
 * Counts each identifier's passes and rejections per policy in memory and sends the busiest to
 * the identifier stats once a second, for the admin's GET /identifiers; and, with a profile
 * store, each identifier's requests per window of its policy to the traffic profile.
 */
@Injectable()
export class IdentifierTally
  implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new ThrottledLogger(new Logger('Sluice'), LOG_EVERY_MS, () =>
    this.clock(),
  );
  /**
   * Policy → key kind → identifier → its counts since the last flush. Entries outlive a flush
   * (IDLE_FLUSHES_KEPT): a returning identifier costs a lookup, not a new entry and a map grown
   * again.
   */
  private readonly current = new Map<string, Map<string, Map<string, Entry>>>();
  private tracked = 0;
  /** Entries made since the last flush. */
  private created = 0;
  private readonly flushes = new PeriodicTask(() => this.send(), FLUSH_EVERY_MS);

  private readonly profile: ProfileCounter | undefined;
  private readonly replay: ReplayRecorder | undefined;

  constructor(
    @Inject(IDENTIFIER_STATS) private readonly store: IdentifierStatsStore,
    @Inject(SLUICE_CLOCK) private readonly clock: Clock,
    @Optional() @Inject(TRAFFIC_PROFILE) profiles?: TrafficProfileStore | null,
    @Optional() @Inject(PolicyRegistry) policies?: PolicyRegistry,
    @Optional() @Inject(REPLAY_STORE) replays?: ReplayStore | null,
  ) {
    this.profile =
      profiles !== undefined && profiles !== null && policies !== undefined
        ? new ProfileCounter(profiles, policies)
        : undefined;
    this.replay =
      this.profile !== undefined && replays !== undefined && replays !== null
        ? new ReplayRecorder(replays, this.profile)
        : undefined;
  }

  onModuleInit(): void {
    this.flushes.start();
  }

  /**
   * Sends what was counted before any module's onApplicationShutdown, while an app's own Redis
   * client is still open; onApplicationShutdown sends what comes after.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.send();
  }

  async onApplicationShutdown(): Promise<void> {
    // The last counts leave at once, before the connection's own shutdown, which runs beside this.
    // A flush under way took what it sends already; this sends what came since.
    const stopping = this.flushes.stop();
    await this.send();
    await stopping;
  }

  /**
   * Counts each policy of a decision under the key kind they all counted by. A policy that
   * admitted a refused request counts neither way: the request did not pass; its profile counts
   * it, as a request the policy was asked about.
   */
  count(decision: Decision, keyKind: string, identifier: string): void {
    const atUs = this.clock();
    const now = Math.floor(atUs / 1000);
    // An identifier cut for display is counted, and named, by its stored key.
    const key = keyOfCut(identifier);
    for (const part of decision.policies) {
      const passed = part.allowed && decision.allowed;
      const entry = this.add(
        part.policy,
        keyKind,
        identifier,
        key,
        part.allowed && !passed ? undefined : passed,
        now,
      );
      if (entry === undefined || this.profile === undefined) continue;
      this.profile.count(part.policy, keyKind, entry, now, part.tier ?? '');
      // The replay's record: what the live rule did (a shadow policy's would-be refusal as one).
      const live = !part.allowed || part.reason === 'shadow' ? 'r' : passed ? 'a' : 'n';
      this.replay?.record(part.policy, keyKind, entry, atUs, live);
    }
    if (decision.candidates !== undefined) {
      this.countDifferences(decision, keyKind, identifier, key, now);
    }
  }

  /**
   * Where a candidate and its live policy answer differently, under the candidate's stats name:
   * `rejected` counts the requests the candidate would refuse and live admits, `passed` those
   * live refuses and the candidate would admit (docs/architecture.md, "Shadow candidates").
   */
  private countDifferences(
    decision: Decision,
    keyKind: string,
    identifier: string,
    key: string | undefined,
    now: number,
  ): void {
    for (const candidate of decision.candidates ?? []) {
      const live = decision.policies.find((part) => part.policy === candidate.policy);
      if (live === undefined || live.allowed === candidate.allowed) continue;
      const name = candidateStatsName(candidate.policy);
      this.add(name, keyKind, identifier, key, candidate.allowed, now);
    }
  }

  /** `passed` undefined: the request counts neither way (count). */
  private add(
    policy: string,
    keyKind: string,
    identifier: string,
    key: string | undefined,
    passed: boolean | undefined,
    now: number,
  ): Entry | undefined {
    const counts = this.countsOf(policy, keyKind);
    const name = key ?? identifier;
    let entry = counts.get(name);
    if (entry === undefined) {
      if (this.created >= TRACKED_PER_FLUSH) return undefined;
      this.created++;
      const shown = key === undefined ? identifier : displayForm(identifier);
      entry = {
        identifier: shown,
        key,
        passed: 0,
        rejected: 0,
        lastSeen: now,
        idle: 0,
        window: -1,
        inWindow: 0,
        tier: '',
        member: undefined,
        hash: undefined,
        field: undefined,
      };
      counts.set(name, entry);
      this.tracked++;
    }
    if (passed === true) entry.passed++;
    else if (passed === false) entry.rejected++;
    entry.lastSeen = now;
    return entry;
  }

  private countsOf(policy: string, keyKind: string): Map<string, Entry> {
    return getOrAdd(getOrAdd(this.current, policy, newMap), keyKind, newMap);
  }

  /** Sends what was counted since the last flush; joins a flush under way. */
  flush(): Promise<void> {
    return this.flushes.run();
  }

  private async send(): Promise<void> {
    if (this.tracked === 0) return;
    const nowMs = Math.floor(this.clock() / 1000);
    const keep = this.tracked <= KEPT_AT_MOST;
    this.created = 0;
    const sent: IdentifierCount[] = [];
    for (const [policy, byKind] of this.current) {
      const busiest = new Busiest(SENT_PER_POLICY);
      for (const [keyKind, counts] of byKind) {
        this.take(policy, keyKind, counts, busiest, keep, nowMs);
        if (counts.size === 0) byKind.delete(keyKind);
      }
      if (byKind.size === 0) this.current.delete(policy);
      busiest.into(sent);
    }
    await Promise.all([this.sendCounts(sent), this.sendProfile(nowMs), this.sendReplay()]);
  }

  private async sendCounts(sent: IdentifierCount[]): Promise<void> {
    if (sent.length === 0) return;
    try {
      await this.store.add(sent);
    } catch (error) {
      this.logger.warn(`Identifier counts of the last second were not stored: ${String(error)}`);
    }
  }

  private async sendReplay(): Promise<void> {
    try {
      await this.replay?.send();
    } catch (error) {
      this.logger.warn(`Replay records of the last second were not stored: ${String(error)}`);
    }
  }

  private async sendProfile(nowMs: number): Promise<void> {
    try {
      await this.profile?.send(nowMs);
    } catch (error) {
      this.logger.warn(
        `Traffic profile counts of the last second were not stored: ${String(error)}`,
      );
    }
  }

  /**
   * Offers each counted entry of `counts` to `busiest` as what it counted since the last flush,
   * then zeroes it; an entry idle too long goes, and all go when the tally may not `keep` them.
   */
  private take(
    policy: string,
    keyKind: string,
    counts: Map<string, Entry>,
    busiest: Busiest,
    keep: boolean,
    nowMs: number,
  ): void {
    // forEach, not for…of: no [name, entry] pair made for each of thousands of entries.
    const profile = this.profile;
    counts.forEach((entry, name) => {
      if (entry.passed !== 0 || entry.rejected !== 0 || entry.inWindow !== 0) {
        if (entry.passed !== 0 || entry.rejected !== 0) busiest.offer(policy, keyKind, entry);
        profile?.take(policy, keyKind, entry, nowMs);
        entry.passed = 0;
        entry.rejected = 0;
        entry.idle = 0;
      } else if (keep && ++entry.idle > IDLE_FLUSHES_KEPT) {
        counts.delete(name);
        this.tracked--;
      }
    });
    if (!keep) {
      this.tracked -= counts.size;
      counts.clear();
    }
  }
}

/**
 * The `size` busiest entries of one policy, by rejections then passes, copied as they are offered:
 * a bounded heap, so a flush does not sort every identifier counted.
 */
class Busiest {
  /** A min-heap: the least busy kept at the root, the first to give way. */
  private readonly heap: IdentifierCount[] = [];

  constructor(private readonly size: number) {}

  offer(policy: string, keyKind: string, entry: Entry): void {
    const heap = this.heap;
    if (heap.length === this.size) {
      if (!busier(entry, heap[0] as IdentifierCount)) return;
    }
    const count: IdentifierCount = {
      policy,
      keyKind,
      identifier: entry.identifier,
      passed: entry.passed,
      rejected: entry.rejected,
      lastSeen: entry.lastSeen,
    };
    if (entry.key !== undefined) count.key = entry.key;
    if (heap.length === this.size) {
      heap[0] = count;
      this.down(0);
    } else {
      heap.push(count);
      this.up(heap.length - 1);
    }
  }

  /** Adds the kept entries to `sent`, the busiest first. */
  into(sent: IdentifierCount[]): void {
    for (const count of this.heap.sort((a, b) => (busier(a, b) ? -1 : busier(b, a) ? 1 : 0))) {
      sent.push(count);
    }
  }

  private up(at: number): void {
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.lessBusy(at, parent)) return;
      this.swap(at, parent);
      at = parent;
    }
  }

  private down(at: number): void {
    const heap = this.heap;
    for (;;) {
      const left = 2 * at + 1;
      let least = at;
      if (left < heap.length && this.lessBusy(left, least)) least = left;
      if (left + 1 < heap.length && this.lessBusy(left + 1, least)) least = left + 1;
      if (least === at) return;
      this.swap(at, least);
      at = least;
    }
  }

  private lessBusy(a: number, b: number): boolean {
    return busier(this.heap[b] as IdentifierCount, this.heap[a] as IdentifierCount);
  }

  private swap(a: number, b: number): void {
    const heap = this.heap;
    const held = heap[a] as IdentifierCount;
    heap[a] = heap[b] as IdentifierCount;
    heap[b] = held;
  }
}

/** Whether `a` is busier than `b`: more rejections, then more passes. */
function busier(
  a: Pick<IdentifierCount, 'passed' | 'rejected'>,
  b: Pick<IdentifierCount, 'passed' | 'rejected'>,
): boolean {
  return a.rejected !== b.rejected ? a.rejected > b.rejected : a.passed > b.passed;
}
