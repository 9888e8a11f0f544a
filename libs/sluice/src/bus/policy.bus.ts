import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { SluiceEngine } from '../engine/sluice.engine.js';
import type { Policy } from '../policy/policy.types.js';
import { epochMs, type Clock } from '../clock/clock.js';
import { POLICY_CHANNEL, SLUICE_CLOCK, SLUICE_OPTIONS } from '../config/sluice.tokens.js';
import type { SluiceModuleOptions } from '../config/sluice-options.interface.js';
import { TrackerResolver } from '../trackers/tracker.resolver.js';
import { BlockCache } from '../penalty/block.cache.js';
import type { InstanceHeartbeat } from './instance.heartbeat.js';
import { InstancePresence } from './instance.presence.js';
import type { PolicyChannel } from './policy.channel.js';
import { PeriodicTask } from '../clock/periodic.task.js';
import type { PolicySnapshot, UnblockNotice } from './policy-snapshot.js';
import { SnapshotApplier } from './snapshot.applier.js';
import { SnapshotFollower } from './snapshot.follower.js';
import { UnblockFanout } from './unblock.fanout.js';

const DEFAULT_INTERVAL_MS = 5_000;

/**
 * This instance's link to the others through the policy channel (docs/architecture.md): it
 * applies the published snapshot (SnapshotApplier), follows it (SnapshotFollower), heartbeats
 * what it applied (InstancePresence) and passes lifted blocks on (UnblockFanout).
 */
@Injectable()
export class PolicyBus
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new Logger('Sluice');
  private readonly applier: SnapshotApplier;
  private readonly follower: SnapshotFollower;
  private readonly presence: InstancePresence;
  private readonly fanout: UnblockFanout;
  private readonly blocks: BlockCache;
  private starting: Promise<void> | undefined;
  private tasks: PeriodicTask[] = [];

  constructor(
    @Inject(SLUICE_OPTIONS) private readonly options: SluiceModuleOptions,
    @Inject(SluiceEngine) private readonly engine: SluiceEngine,
    @Inject(POLICY_CHANNEL) private readonly channel: PolicyChannel,
    @Inject(BlockCache) blocks: BlockCache,
    @Inject(TrackerResolver) trackers: TrackerResolver,
    @Inject(SLUICE_CLOCK) clock: Clock,
  ) {
    this.applier = new SnapshotApplier(engine, trackers, this.logger, () => epochMs(clock));
    this.presence = new InstancePresence(channel, clock);
    this.fanout = new UnblockFanout(channel, blocks);
    this.blocks = blocks;
    this.follower = new SnapshotFollower(channel, {
      version: () => this.applier.version,
      apply: (snapshot) => this.apply(snapshot),
      unblocked: (target) => this.fanout.heard(target),
    });
  }

  /** This instance's id, as its heartbeat gives it. */
  get instanceId(): string {
    return this.presence.instanceId;
  }

  /** The applied snapshot's version; 0 while only code defaults apply. */
  get version(): number {
    return this.applier.version;
  }

  /** Whether the applied snapshot enforces policies. */
  get enforcing(): boolean {
    return this.engine.policies.enforcing;
  }

  /** Why the last snapshot was refused, else why the channel could not be reached, else null. */
  get lastError(): string | null {
    return this.applier.error ?? this.follower.error;
  }

  /**
   * Instances that heartbeated within the last 30 s, this one included, as last read: what a
   * policy with onStoreError 'local' splits its limit by while Redis is away.
   */
  get liveInstances(): number {
    return this.presence.liveInstances;
  }

  /** True once a snapshot was read, or the channel answered that none is stored yet. */
  get synced(): boolean {
    return this.follower.synced;
  }

  /** The policies code defines: module options and `@Throttle()` defaults. */
  codeDefaults(): Policy[] {
    return this.applier.codeDefaults();
  }

  /** A code default found after construction (a `@Throttle()` default); applies unless overridden. */
  addCodeDefault(policy: Policy): void {
    this.applier.addCodeDefault(policy);
  }

  /** Reads the stored snapshot once, then follows changes. Safe to call more than once. */
  start(): Promise<void> {
    return (this.starting ??= this.follow());
  }

  /** Starts following the stored snapshot. */
  async onApplicationBootstrap(): Promise<void> {
    await this.start();
  }

  /**
   * Stops the timers and removes the heartbeat before any module's onApplicationShutdown: an app
   * that passed its own Redis client may close it there, and SluiceModule, being global, shuts
   * down after the app's modules (docs/guide.md, "The Redis connection").
   */
  beforeApplicationShutdown(): Promise<void> {
    return (this.leaving ??= this.leave());
  }

  /** Leaves (when beforeApplicationShutdown did not run), then closes the channel. */
  async onApplicationShutdown(): Promise<void> {
    await (this.leaving ??= this.leave());
    await this.channel.close();
  }

  private leaving: Promise<void> | undefined;

  private async leave(): Promise<void> {
    // The timers stop at once; the heartbeat is removed before anything else is awaited, since
    // the connection's own shutdown runs beside this one. A beat under way was sent first on the
    // same connection, so it cannot land after the removal.
    const stopping = this.tasks.map((task) => task.stop());
    this.tasks = [];
    this.follower.stop();
    await this.presence.leave();
    await Promise.all(stopping);
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
  announceUnblock(target: UnblockNotice['unblock']): Promise<void> {
    return this.fanout.announce(target);
  }

  /** The version Redis holds, or null when none is published: an operator's read. */
  storedVersion(): Promise<number | null> {
    return this.channel.storedVersion('operator');
  }

  /** Every instance's last heartbeat: an operator's read. */
  instances(): Promise<InstanceHeartbeat[]> {
    return this.presence.instances();
  }

  /** Applies a snapshot newer than the current one; false when it is older, the same or invalid. */
  apply(snapshot: PolicySnapshot): boolean {
    const before = new Map(this.engine.policies.all().map((policy) => [policy.name, policy]));
    const listsBefore = JSON.stringify(this.engine.lists.entries());
    const applied = this.applier.apply(snapshot);
    // A cached block was decided under the old definition: an override given since (unlimited,
    // say) must not wait for the cached block to run out.
    if (applied) {
      for (const policy of this.engine.policies.all()) {
        const old = before.get(policy.name);
        if (old === undefined || JSON.stringify(old) !== JSON.stringify(policy)) {
          this.blocks.forgetPolicy(policy.name);
        }
      }
      // Likewise an allow entry given since: its identifiers pass from now on.
      if (JSON.stringify(this.engine.lists.entries()) !== listsBefore) {
        for (const entry of this.engine.lists.entries()) {
          if (entry.list !== 'allow') continue;
          const names = entry.policies ?? this.engine.policies.all().map((policy) => policy.name);
          for (const name of names) this.blocks.forgetPolicy(name);
        }
      }
    }
    // Once following, the panel learns of the new version with the next heartbeat, sent now.
    if (applied && this.starting !== undefined) void this.beat();
    return applied;
  }

  private async follow(): Promise<void> {
    await this.follower.start();
    if (!this.follower.synced) {
      this.logger.warn(
        'Sluice: the policy snapshot could not be read at start; this instance enforces its code defaults until it can sync',
      );
    }
    this.tasks = [
      new PeriodicTask(
        () => this.follower.poll(),
        this.options.syncIntervalMs ?? DEFAULT_INTERVAL_MS,
      ),
      new PeriodicTask(() => this.beat(), this.options.heartbeatIntervalMs ?? DEFAULT_INTERVAL_MS),
    ];
    for (const task of this.tasks) task.start();
    await this.beat();
  }

  private beat(): Promise<void> {
    return this.presence.beat(this.applier.version, this.lastError);
  }
}
