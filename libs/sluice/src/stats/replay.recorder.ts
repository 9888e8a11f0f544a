import { memberOfEntry, type ProfileCounter, type ProfiledEntry } from './profile.counter.js';
import type { ReplayRecord, ReplayStore } from './replay.store.js';

/** Requests one instance records between two flushes at most; more are left out and counted. */
const RECORDED_PER_FLUSH = 20_000;

/**
 * Records each request of the identifiers the traffic profile samples, with its time and what
 * the live rule did, and sends them to the replay store once a second (docs/algorithms.md,
 * "Replay"). A request costs a few array writes; who is kept is decided at the flush.
 */
export class ReplayRecorder {
  private entries: ProfiledEntry[] = [];
  private policies: string[] = [];
  private kinds: string[] = [];
  private times: number[] = [];
  private lives: Array<ReplayRecord['live']> = [];
  /** Requests left out since the start, past RECORDED_PER_FLUSH in a second. */
  dropped = 0;

  constructor(
    readonly store: ReplayStore,
    private readonly counter: ProfileCounter,
  ) {}

  record(
    policy: string,
    keyKind: string,
    entry: ProfiledEntry,
    atUs: number,
    live: ReplayRecord['live'],
  ): void {
    if (this.times.length >= RECORDED_PER_FLUSH) {
      this.dropped++;
      return;
    }
    this.entries.push(entry);
    this.policies.push(policy);
    this.kinds.push(keyKind);
    this.times.push(atUs);
    this.lives.push(live);
  }

  /** Sends the sampled identifiers' records, one append per policy. */
  async send(): Promise<void> {
    const { entries, policies, kinds, times, lives } = this;
    this.entries = [];
    this.policies = [];
    this.kinds = [];
    this.times = [];
    this.lives = [];
    const byPolicy = new Map<string, ReplayRecord[]>();
    for (let at = 0; at < times.length; at++) {
      const entry = entries[at] as ProfiledEntry;
      const policy = policies[at] as string;
      const keyKind = kinds[at] as string;
      if (!this.counter.keeps(policy, keyKind, entry)) continue;
      let records = byPolicy.get(policy);
      if (records === undefined) {
        records = [];
        byPolicy.set(policy, records);
      }
      records.push({
        member: memberOfEntry(keyKind, entry),
        tier: entry.tier,
        atUs: times[at] as number,
        live: lives[at] as ReplayRecord['live'],
      });
    }
    await Promise.all([...byPolicy].map(([policy, records]) => this.store.append(policy, records)));
  }
}
