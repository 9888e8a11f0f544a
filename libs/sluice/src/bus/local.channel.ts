import type { InstanceHeartbeat } from './instance.heartbeat.js';
import type { ChannelListener, PolicyChannel } from './policy.channel.js';
import type { ChangeNotice, PolicySnapshot, UnblockNotice } from './policy-snapshot.js';

/** Without Redis there is one instance: the snapshot and heartbeat live in this process. */
export class LocalPolicyChannel implements PolicyChannel {
  private snapshot: PolicySnapshot | null = null;
  private readonly listeners = new Set<ChannelListener>();
  private readonly beats = new Map<string, InstanceHeartbeat>();

  read(): Promise<PolicySnapshot | null> {
    return Promise.resolve(this.snapshot && structuredClone(this.snapshot));
  }

  storedVersion(): Promise<number | null> {
    return Promise.resolve(this.snapshot?.version ?? null);
  }

  write(snapshot: PolicySnapshot): Promise<boolean> {
    if (this.snapshot !== null && this.snapshot.version >= snapshot.version) {
      return Promise.resolve(false);
    }
    this.snapshot = structuredClone(snapshot);
    return Promise.resolve(true);
  }

  announce(notice: ChangeNotice): Promise<void> {
    for (const listener of this.listeners) listener.notice(notice);
    return Promise.resolve();
  }

  announceUnblock(target: UnblockNotice['unblock']): Promise<void> {
    for (const listener of this.listeners) listener.unblocked(target);
    return Promise.resolve();
  }

  subscribe(listener: ChannelListener): Promise<void> {
    this.listeners.add(listener);
    return Promise.resolve();
  }

  beat(heartbeat: InstanceHeartbeat): Promise<void> {
    this.beats.set(heartbeat.id, heartbeat);
    return Promise.resolve();
  }

  heartbeats(): Promise<InstanceHeartbeat[]> {
    return Promise.resolve([...this.beats.values()]);
  }

  forget(instanceId: string): Promise<void> {
    this.beats.delete(instanceId);
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.listeners.clear();
    return Promise.resolve();
  }
}
