import type { ChannelListener, PolicyChannel } from './policy.channel.js';
import type { ChangeNotice, PolicySnapshot, UnblockNotice } from './policy-snapshot.js';

/** A notice whose snapshot could not be read is retried this soon, doubling up to a second. */
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 1_000;

/** Where the follower hands what it reads. */
export interface FollowerTarget {
  /** The version applied here: notices of it or older need no read. */
  version(): number;
  apply(snapshot: PolicySnapshot): void;
  unblocked(target: UnblockNotice['unblock']): void;
}

/**
 * Follows the published snapshot: re-reads it on every newer notice, after a resubscription and
 * on each poll (pub/sub drops messages while a subscriber is away). One read at a time; a
 * notice arriving meanwhile triggers one more, and a failed read is retried within a second.
 */
export class SnapshotFollower {
  private reachedChannel = false;
  private connectionError: string | null = null;
  private syncing: Promise<void> | undefined;
  private syncAgain = false;
  private stopped = false;
  private retryMs = FIRST_RETRY_MS;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly channel: PolicyChannel,
    private readonly target: FollowerTarget,
  ) {}

  /** True once a snapshot was read, or the channel answered that none is stored yet. */
  get synced(): boolean {
    return this.reachedChannel;
  }

  /** Why the channel could not be reached, or null. */
  get error(): string | null {
    return this.connectionError;
  }

  /** Subscribes, then reads the stored snapshot once. */
  async start(): Promise<void> {
    const listener: ChannelListener = {
      notice: (notice: ChangeNotice) => {
        if (notice.version > this.target.version()) void this.sync();
      },
      resubscribed: () => void this.sync(),
      unblocked: (target) => this.target.unblocked(target),
    };
    await this.channel
      .subscribe(listener)
      .catch((error: unknown) => this.failed('subscribe', error));
    await this.read();
  }

  stop(): void {
    clearTimeout(this.retry);
    this.stopped = true;
  }

  /** Reads the stored version, and the snapshot when it is newer than the applied one. */
  async poll(): Promise<void> {
    try {
      const stored = await this.channel.storedVersion();
      this.reached();
      if (stored !== null && stored > this.target.version()) await this.sync();
    } catch (error) {
      this.failed('poll the policy version', error);
    }
  }

  private sync(): Promise<void> {
    if (this.syncing !== undefined) {
      this.syncAgain = true;
      return this.syncing;
    }
    clearTimeout(this.retry);
    this.retry = undefined;
    this.syncing = (async () => {
      let read: boolean;
      do {
        this.syncAgain = false;
        read = await this.read();
      } while (this.syncAgain);
      if (read) this.retryMs = FIRST_RETRY_MS;
      else this.retryLater();
    })().finally(() => (this.syncing = undefined));
    return this.syncing;
  }

  private retryLater(): void {
    if (this.stopped) return;
    this.retry = setTimeout(() => void this.sync(), this.retryMs);
    this.retry.unref();
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
  }

  /** False when the channel could not be read. */
  private async read(): Promise<boolean> {
    try {
      const snapshot = await this.channel.read();
      this.reached();
      if (snapshot !== null) this.target.apply(snapshot);
      return true;
    } catch (error) {
      this.failed('read the policy snapshot', error);
      return false;
    }
  }

  private reached(): void {
    this.reachedChannel = true;
    this.connectionError = null;
  }

  private failed(action: string, error: unknown): void {
    this.connectionError = `could not ${action}: ${(error as Error).message}`;
  }
}
