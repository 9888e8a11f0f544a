import { memberOfEntry, type ProfileCounter, type ProfiledEntry } from './profile.counter.js';
import type { ReplayBatch, ReplayRecord, ReplayStore } from './replay.store.js';

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
    const byPolicy = new Map<string, ReplayBatch>();
    // Per entry (an entry belongs to one policy): its index in its policy's batch, or -1 when
    // the profile does not keep its identifier; the same for all its records of this flush.
    const indexes = new Map<ProfiledEntry, number>();
    for (let at = 0; at < times.length; at++) {
      const entry = entries[at] as ProfiledEntry;
      const policy = policies[at] as string;
      let index = indexes.get(entry);
      let batch: ReplayBatch | undefined;
      if (index === undefined) {
        const keyKind = kinds[at] as string;
        index = -1;
        if (this.counter.keeps(policy, keyKind, entry)) {
          batch = byPolicy.get(policy);
          if (batch === undefined) {
            batch = { who: [], index: [], atUs: [], live: [] };
            byPolicy.set(policy, batch);
          }
          index = batch.who.length;
          batch.who.push({ tier: entry.tier, member: memberOfEntry(keyKind, entry) });
        }
        indexes.set(entry, index);
      }
      if (index < 0) continue;
      batch ??= byPolicy.get(policy) as ReplayBatch;
      batch.index.push(index);
      batch.atUs.push(times[at] as number);
      batch.live.push(lives[at] as ReplayRecord['live']);
    }
    await Promise.all([...byPolicy].map(([policy, batch]) => this.store.append(policy, batch)));
  }
}
