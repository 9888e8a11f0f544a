import { heartbeat, newInstanceId, type InstanceHeartbeat } from './instance.heartbeat.js';
import type { PolicyChannel } from './policy.channel.js';

/** An instance silent this long shows as stale, and no longer counts as live. */
export const STALE_AFTER_MS = 30_000;

/**
 * This instance's heartbeat (what it applied, and why it may be behind), and the count of live
 * instances read back with it: what a policy with onStoreError 'local' splits its limit by.
 */
export class InstancePresence {
  readonly instanceId = newInstanceId();
  private readonly startedAt = new Date();
  private liveCount = 1;

  constructor(private readonly channel: PolicyChannel) {}

  /** Instances that heartbeated within the last 30 s, this one included, as last read. */
  get liveInstances(): number {
    return this.liveCount;
  }

  async beat(version: number, lastError: string | null): Promise<void> {
    const beat = heartbeat(this.instanceId, this.startedAt, version, lastError, new Date());
    try {
      await this.channel.beat(beat);
      const seenSince = Date.now() - STALE_AFTER_MS;
      const beats = await this.channel.heartbeats();
      const live = beats.filter((each) => Date.parse(each.lastSeen) >= seenSince).length;
      this.liveCount = Math.max(1, live);
    } catch {
      // Redis is away: the last count stands, and the sync error says why.
    }
  }

  instances(): Promise<InstanceHeartbeat[]> {
    return this.channel.heartbeats();
  }

  /** Removes this instance's heartbeat at shutdown, so the panel does not wait for it to go stale. */
  async leave(): Promise<void> {
    await this.channel.forget(this.instanceId).catch(() => undefined);
  }
}
