import type { InstanceHeartbeat } from './instance.heartbeat.js';
import type { ChangeNotice, PolicySnapshot, UnblockNotice } from './policy-snapshot.js';

/** What a channel tells its subscriber. */
export interface ChannelListener {
  /** A change notice arrived; it says only that a newer snapshot may exist. */
  notice(notice: ChangeNotice): void;
  /** The subscription was (re-)established: notices may have been missed meanwhile. */
  resubscribed(): void;
  /** A block was lifted somewhere: forget any copy of it. */
  unblocked(target: UnblockNotice['unblock']): void;
}

/**
 * Who waits on a read: `'operator'` reads (the admin's instance list, its version checks) may take
 * longer than a decision's timeout, so they go on the connection meant for them
 * (SluiceConnection.readRedis); `'instance'` reads are the instance's own, on its main connection.
 */
export type ChannelReader = 'instance' | 'operator';

/** Where snapshots, change notices and heartbeats travel: Redis, or this process alone. */
export interface PolicyChannel {
  /** The stored snapshot, or null when none is stored. */
  read(): Promise<PolicySnapshot | null>;
  /** The stored snapshot's version, or null. */
  storedVersion(reader?: ChannelReader): Promise<number | null>;
  /** Stores the snapshot unless a newer one is stored; true when it was stored. */
  write(snapshot: PolicySnapshot): Promise<boolean>;
  /** Tells every instance that a newer snapshot may exist. */
  announce(notice: ChangeNotice): Promise<void>;
  /** Tells every instance to forget its copy of a lifted block. */
  announceUnblock(target: UnblockNotice['unblock']): Promise<void>;
  /** Starts delivering notices to `listener`. */
  subscribe(listener: ChannelListener): Promise<void>;
  /** Records this instance's heartbeat. */
  beat(heartbeat: InstanceHeartbeat): Promise<void>;
  /** Every instance's last heartbeat. */
  heartbeats(reader?: ChannelReader): Promise<InstanceHeartbeat[]>;
  /** Removes an instance's heartbeat: it is shutting down. */
  forget(instanceId: string): Promise<void>;
  /** Unsubscribes and lets go of the channel's connection. */
  close(): Promise<void>;
}
