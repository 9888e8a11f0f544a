import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { SluiceEngine } from '../engine/sluice.engine.js';
import { parsePolicy } from '../policy/policy.schema.js';
import type { Policy } from '../policy/policy.types.js';
import { SLUICE_OPTIONS } from '../config/sluice.tokens.js';
import type { SluiceModuleOptions } from '../config/sluice-options.interface.js';
import { TrackerResolver } from '../trackers/tracker.resolver.js';
import { heartbeat, newInstanceId, type InstanceHeartbeat } from './instance.heartbeat.js';
import { BlockCache } from '../penalty/block.cache.js';
import { POLICY_CHANNEL } from '../config/sluice.tokens.js';
import type { PolicyChannel } from './policy.channel.js';
import type { ChangeNotice, PolicySnapshot, UnblockNotice } from './policy-snapshot.js';

const DEFAULT_INTERVAL_MS = 5_000;
/** A notice whose snapshot could not be read is retried this soon, doubling up to a second. */
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 1_000;
/** DESIGN §6: an instance silent this long shows as stale. */
export const STALE_AFTER_MS = 30_000;

/**
 * Keeps this instance's policies in step with the published snapshot: applies only newer
 * versions, re-reads on every notice, after a resubscription and on a timer (pub/sub drops
 * messages while a subscriber is away), and heartbeats what it applied.
 */
@Injectable()
export class PolicyBus implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly instanceId = newInstanceId();
  private readonly logger = new Logger('Sluice');
  private readonly codePolicies = new Map<string, Policy>();
  private readonly trackers: TrackerResolver;
  private readonly startedAt = new Date();
  private appliedVersion = 0;
  private rejectedVersion = 0;
  private snapshotError: string | null = null;
  private connectionError: string | null = null;
  private reachedChannel = false;
  private liveCount = 1;
  private starting: Promise<void> | undefined;
  private syncing: Promise<void> | undefined;
  private syncAgain = false;
  private stopped = false;
  private retryMs = FIRST_RETRY_MS;
  private retry: NodeJS.Timeout | undefined;
  private timers: NodeJS.Timeout[] = [];

  constructor(
    @Inject(SLUICE_OPTIONS) private readonly options: SluiceModuleOptions,
    @Inject(SluiceEngine) private readonly engine: SluiceEngine,
    @Inject(POLICY_CHANNEL) private readonly channel: PolicyChannel,
    @Inject(BlockCache) private readonly blocks: BlockCache,
  ) {
    this.trackers = new TrackerResolver(undefined, options.trackers);
    for (const policy of engine.policies.all()) this.codePolicies.set(policy.name, policy);
  }

  /** The applied snapshot's version; 0 while only code defaults apply. */
  get version(): number {
    return this.appliedVersion;
  }

  get enforcing(): boolean {
    return this.engine.policies.enforcing;
  }

  /** Why the last snapshot was refused, else why the channel could not be reached, else null. */
  get lastError(): string | null {
    return this.snapshotError ?? this.connectionError;
  }

  /**
   * Instances that heartbeated within the last 30 s, this one included, as last read: what a
   * policy with onStoreError 'local' splits its limit by while Redis is away.
   */
  get liveInstances(): number {
    return this.liveCount;
  }

  /** True once a snapshot was read, or the channel answered that none is stored yet. */
  get synced(): boolean {
    return this.reachedChannel;
  }

  /** The policies code defines: module options and @Throttle() defaults. */
  codeDefaults(): Policy[] {
    return [...this.codePolicies.values()];
  }

  /** A code default found after construction (a @Throttle() default); applies unless overridden. */
  addCodeDefault(policy: Policy): void {
    this.codePolicies.set(policy.name, policy);
    if (this.appliedVersion === 0) this.engine.policies.set(policy);
  }

  /** Reads the stored snapshot once, then follows changes. Safe to call more than once. */
  start(): Promise<void> {
    return (this.starting ??= this.follow());
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.start();
  }

  async onApplicationShutdown(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    clearTimeout(this.retry);
    this.stopped = true;
    await this.channel.forget(this.instanceId).catch(() => undefined);
    await this.channel.close();
  }

  /**
   * The admin's side: stores the snapshot (never over a newer one), applies it here at once and
   * tells every instance. Throws when the channel is unreachable; the caller publishes again.
   */
  async publish(snapshot: PolicySnapshot, changed: string | null = null): Promise<void> {
    this.apply(snapshot);
    await this.channel.write(snapshot);
    await this.channel.announce({ version: snapshot.version, name: changed });
  }

  /** Tells every instance, this one included, to forget its cached copy of a lifted block. */
  async announceUnblock(target: UnblockNotice['unblock']): Promise<void> {
    this.blocks.forget(target.policy, target.keyKind, target.identifier);
    await this.channel.announceUnblock(target);
  }

  storedVersion(): Promise<number | null> {
    return this.channel.storedVersion();
  }

  instances(): Promise<InstanceHeartbeat[]> {
    return this.channel.heartbeats();
  }

  /** Applies a snapshot newer than the current one; false when it is older, the same or invalid. */
  apply(snapshot: PolicySnapshot): boolean {
    if (snapshot.version <= this.appliedVersion || snapshot.version === this.rejectedVersion) {
      return false;
    }
    const stored: Policy[] = [];
    const problems: string[] = [];
    for (const input of snapshot.policies) {
      try {
        const policy = parsePolicy(input);
        if (!this.trackers.knows(policy.key)) {
          problems.push(
            `policy "${policy.name}" counts by tracker "${policy.key}", not registered here`,
          );
        } else stored.push(policy);
      } catch (error) {
        problems.push((error as Error).message);
      }
    }
    if (problems.length > 0) {
      this.rejectedVersion = snapshot.version;
      this.snapshotError = `snapshot v${snapshot.version} not applied, the last good set stays: ${problems.join('; ')}`;
      this.logger.error(`Sluice: ${this.snapshotError}`);
      return false;
    }
    const effective = new Map(this.codePolicies);
    for (const policy of stored) effective.set(policy.name, policy);
    this.engine.policies.replaceAll([...effective.values()], snapshot.enforcement);
    this.appliedVersion = snapshot.version;
    this.snapshotError = null;
    if (this.starting !== undefined) void this.beat();
    return true;
  }

  private async follow(): Promise<void> {
    await this.channel
      .subscribe({
        notice: (notice: ChangeNotice) => {
          if (notice.version > this.appliedVersion) void this.sync();
        },
        resubscribed: () => void this.sync(),
        unblocked: ({ policy, keyKind, identifier }) =>
          this.blocks.forget(policy, keyKind, identifier),
      })
      .catch((error: unknown) => this.failed('subscribe', error));
    await this.read();
    if (!this.reachedChannel) {
      this.logger.warn(
        'Sluice: the policy snapshot could not be read at start; this instance enforces its code defaults until it can sync',
      );
    }
    const every = (ms: number | undefined, task: () => Promise<void>) => {
      const timer = setInterval(() => void task(), ms ?? DEFAULT_INTERVAL_MS);
      timer.unref();
      this.timers.push(timer);
    };
    every(this.options.syncIntervalMs, () => this.poll());
    every(this.options.heartbeatIntervalMs, () => this.beat());
    await this.beat();
  }

  private async poll(): Promise<void> {
    try {
      const stored = await this.channel.storedVersion();
      this.reached();
      if (stored !== null && stored > this.appliedVersion) await this.sync();
    } catch (error) {
      this.failed('poll the policy version', error);
    }
  }

  /**
   * One read at a time; a notice arriving meanwhile triggers one more. A read that fails (a
   * timeout on a busy server, say) is tried again within a second rather than at the next poll.
   */
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
      if (snapshot !== null) this.apply(snapshot);
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

  private async beat(): Promise<void> {
    const beat = heartbeat(
      this.instanceId,
      this.startedAt,
      this.appliedVersion,
      this.lastError,
      new Date(),
    );
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

  private failed(action: string, error: unknown): void {
    this.connectionError = `could not ${action}: ${(error as Error).message}`;
  }
}
