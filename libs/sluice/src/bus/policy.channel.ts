import type { InstanceHeartbeat } from './instance.heartbeat.js';
import type { ChangeNotice, PolicySnapshot, UnblockNotice } from './policy-snapshot.js';

export interface ChannelListener {
  /** A change notice arrived; it says only that a newer snapshot may exist. */
  notice(notice: ChangeNotice): void;
  /** The subscription was (re-)established: notices may have been missed meanwhile. */
  resubscribed(): void;
  /** A block was lifted somewhere: forget any copy of it. */
  unblocked(target: UnblockNotice['unblock']): void;
}

/** Where snapshots, change notices and heartbeats travel: Redis, or this process alone. */
export interface PolicyChannel {
  read(): Promise<PolicySnapshot | null>;
  storedVersion(): Promise<number | null>;
  /** Stores the snapshot unless a newer one is stored; true when it was stored. */
  write(snapshot: PolicySnapshot): Promise<boolean>;
  announce(notice: ChangeNotice): Promise<void>;
  announceUnblock(target: UnblockNotice['unblock']): Promise<void>;
  subscribe(listener: ChannelListener): Promise<void>;
  beat(heartbeat: InstanceHeartbeat): Promise<void>;
  heartbeats(): Promise<InstanceHeartbeat[]>;
  forget(instanceId: string): Promise<void>;
  close(): Promise<void>;
}
