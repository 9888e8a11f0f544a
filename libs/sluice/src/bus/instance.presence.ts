import type { Clock } from '../clock/clock.js';
import { heartbeat, newInstanceId, type InstanceHeartbeat } from './instance.heartbeat.js';
import type { PolicyChannel } from './policy.channel.js';

/** An instance silent this long shows as stale, and no longer counts as live. */
export const STALE_AFTER_MS = 30_000;

/**
 * An instance silent this long died without stopping (a clean stop removes its entry at once):
 * it is no longer listed, and the next heartbeat of any instance deletes its entry.
 */
export const FORGET_AFTER_MS = 120_000;

/**
 * This instance's heartbeat (what it applied, and why it may be behind), and the count of live
 * instances read back with it: what a policy with onStoreError 'local' splits its limit by.
 */
export class InstancePresence {
  readonly instanceId = newInstanceId();
  private readonly startedAt = new Date();
  private liveCount = 1;

  constructor(
    private readonly channel: PolicyChannel,
    /** SluiceModule's clock (µs): heartbeats carry dates every instance compares. */
    private readonly clock: Clock,
  ) {}

  private now(): number {
    return Math.floor(this.clock() / 1000);
  }

  /** Instances that heartbeated within the last 30 s, this one included, as last read. */
  get liveInstances(): number {
    return this.liveCount;
  }

  async beat(version: number, lastError: string | null): Promise<void> {
    const now = this.now();
    const beat = heartbeat(this.instanceId, this.startedAt, version, lastError, new Date(now));
    try {
      await this.channel.beat(beat);
      const beats = await this.channel.heartbeats();
      const live = beats.filter((each) => Date.parse(each.lastSeen) >= now - STALE_AFTER_MS);
      this.liveCount = Math.max(1, live.length);
      const dead = beats.filter((each) => this.forgotten(each, now));
      for (const each of dead) await this.channel.forget(each.id);
    } catch {
      // Redis is away: the last count stands, and the sync error says why.
    }
  }

  /** Every instance heard from within FORGET_AFTER_MS, stale ones included: an operator's read. */
  async instances(): Promise<InstanceHeartbeat[]> {
    const now = this.now();
    const beats = await this.channel.heartbeats('operator');
    return beats.filter((each) => !this.forgotten(each, now));
  }

  private forgotten(beat: InstanceHeartbeat, now: number): boolean {
    const seen = Date.parse(beat.lastSeen);
    return Number.isNaN(seen) || now - seen > FORGET_AFTER_MS;
  }

  /** Removes this instance's heartbeat at shutdown, so the panel does not wait for it to go stale. */
  async leave(): Promise<void> {
    await this.channel.forget(this.instanceId).catch(() => undefined);
  }
}
