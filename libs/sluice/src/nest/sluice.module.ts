import { Global, Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { LocalPolicyChannel } from '../bus/local.channel.js';
import { PolicyBus } from '../bus/policy.bus.js';
import { RedisPolicyChannel } from '../bus/redis.channel.js';
import { systemClock, type Clock } from '../clock/clock.js';
import { SluiceEngine } from '../engine/sluice.engine.js';
import { ListHitTally } from '../stats/list-hit.tally.js';
import { LocalListHits, RedisListHits } from '../stats/list-hits.store.js';
import { AccessLists } from '../lists/access-lists.js';
import { PolicyRegistry } from '../policy/policy.registry.js';
import { LocalPenaltyStream } from '../penalty/local-penalty.stream.js';
import { PenaltyEventPublisher } from '../events/penalty-event.publisher.js';
import { RedisPenaltyStream } from '../penalty/redis-penalty.stream.js';
import { DecisionTally } from '../stats/decision.tally.js';
import { IdentifierTally } from '../stats/identifier.tally.js';
import { LocalTrafficProfile } from '../stats/local-traffic.profile.js';
import { LocalReplayStore } from '../stats/local-replay.store.js';
import { RedisReplayStore } from '../stats/redis-replay.store.js';
import {
  DEFAULT_MAX_RECORDS,
  DEFAULT_RETENTION_MS,
  type ReplayStore,
} from '../stats/replay.store.js';
import { RedisTrafficProfile } from '../stats/redis-traffic.profile.js';
import {
  DEFAULT_PROFILE_LIMITS,
  type TrafficProfileStore,
} from '../stats/traffic-profile.store.js';
import { LocalDecisionStats } from '../stats/local-decision.stats.js';
import { RedisDecisionStats } from '../stats/redis-decision.stats.js';
import { LocalIdentifierStats } from '../stats/local-identifier.stats.js';
import { RedisIdentifierStats } from '../stats/redis-identifier.stats.js';
import { BlockCache } from '../penalty/block.cache.js';
import { BlockGate } from './block.gate.js';
import { CallDecider } from './call.decider.js';
import { ManualBlocks } from './manual.blocks.js';
import { PeerAddressesInstaller } from './peer-addresses.installer.js';
import { RouteExplorer } from './route.explorer.js';
import { RouteRegistry } from './route.registry.js';
import { SluiceConnection } from '../connection/sluice.connection.js';
import { SluiceGuard } from './sluice.guard.js';
import {
  SluiceConfigurableModule,
  SLUICE_OPTIONS,
  type SluiceModuleAsyncOptions,
} from './sluice.module-definition.js';
import type {
  SluiceModuleExtras,
  SluiceModuleOptions,
} from '../config/sluice-options.interface.js';
import { assertOptions } from '../config/sluice-options.validation.js';
import { SluiceService } from './sluice.service.js';
import { SluiceTelemetry } from '../metrics/sluice.telemetry.js';
import {
  DECISION_STATS,
  GLOBAL_GUARD,
  IDENTIFIER_STATS,
  TRAFFIC_PROFILE,
  REPLAY_STORE,
  LIST_HITS,
  PENALTY_STREAM,
  POLICY_CHANNEL,
  SLUICE_CLOCK,
} from '../config/sluice.tokens.js';
import { LocalFallback } from './local.fallback.js';
import { StoreOutageDecider } from './store-outage.decider.js';
import { assertPeerVersions } from '../peers/peer.versions.js';
import { TrackerResolver } from '../trackers/tracker.resolver.js';
import { ThrottleMetadataAccessor } from '../metadata/throttle-metadata.accessor.js';

const DEFAULT_BLOCK_CACHE_SIZE = 10_000;

/**
 * Sluice in a Nest app: `SluiceModule.forRoot(options)`, or `forRootAsync()` with `imports`,
 * `inject` and one of `useFactory`, `useClass` or `useExisting`; `global: true` on either guards
 * every route with SluiceGuard.
 */
@Global()
@Module({
  imports: [DiscoveryModule],
  providers: [
    { provide: SLUICE_CLOCK, useValue: systemClock },
    {
      provide: SluiceConnection,
      inject: [SLUICE_OPTIONS, SLUICE_CLOCK],
      useFactory: (options: SluiceModuleOptions, clock: Clock) => {
        assertPeerVersions(['@nestjs/common', '@nestjs/core']);
        assertOptions(options);
        return SluiceConnection.open(options, clock);
      },
    },
    {
      provide: SluiceEngine,
      inject: [SLUICE_OPTIONS, SluiceConnection, SLUICE_CLOCK],
      useFactory: (options: SluiceModuleOptions, connection: SluiceConnection, clock: Clock) =>
        new SluiceEngine({
          store: connection.store,
          prefix: options.prefix,
          clock,
          policies: options.policies?.map((policy) => ({ source: 'code', ...policy })),
        }),
    },
    {
      // The policies in force, for the guard, the gate and the admin: the engine's registry.
      provide: PolicyRegistry,
      inject: [SluiceEngine],
      useFactory: (engine: SluiceEngine) => engine.policies,
    },
    {
      provide: AccessLists,
      inject: [SluiceEngine],
      useFactory: (engine: SluiceEngine) => engine.lists,
    },
    {
      provide: TrackerResolver,
      inject: [SLUICE_OPTIONS],
      useFactory: (options: SluiceModuleOptions) =>
        new TrackerResolver(options.trustProxy, options.trackers, options.ipv6Prefix),
    },
    ThrottleMetadataAccessor,
    {
      provide: BlockCache,
      inject: [SLUICE_OPTIONS],
      useFactory: (options: SluiceModuleOptions) =>
        new BlockCache(options.blockCacheSize ?? DEFAULT_BLOCK_CACHE_SIZE),
    },
    {
      provide: POLICY_CHANNEL,
      inject: [SLUICE_OPTIONS, SluiceConnection],
      useFactory: (options: SluiceModuleOptions, connection: SluiceConnection) =>
        connection.redis === undefined
          ? new LocalPolicyChannel()
          : new RedisPolicyChannel(
              connection.redis,
              options.prefix ?? 'sluice',
              () =>
                connection.readRedis ?? (connection.redis as NonNullable<typeof connection.redis>),
            ),
    },
    {
      provide: PENALTY_STREAM,
      inject: [SLUICE_OPTIONS, SluiceConnection],
      useFactory: (options: SluiceModuleOptions, connection: SluiceConnection) =>
        connection.redis === undefined
          ? new LocalPenaltyStream()
          : new RedisPenaltyStream(connection.redis, options.prefix ?? 'sluice'),
    },
    {
      provide: IDENTIFIER_STATS,
      inject: [SLUICE_OPTIONS, SluiceConnection, SLUICE_CLOCK],
      useFactory: (options: SluiceModuleOptions, connection: SluiceConnection, clock: Clock) =>
        connection.redis === undefined
          ? new LocalIdentifierStats(clock)
          : new RedisIdentifierStats(
              connection.redis,
              options.prefix ?? 'sluice',
              () =>
                connection.readRedis ?? (connection.redis as NonNullable<typeof connection.redis>),
            ),
    },
    {
      provide: REPLAY_STORE,
      inject: [SLUICE_OPTIONS, SluiceConnection],
      useFactory: (options: SluiceModuleOptions, connection: SluiceConnection) =>
        replayStoreOf(options, connection),
    },
    {
      provide: TRAFFIC_PROFILE,
      inject: [SLUICE_OPTIONS, SluiceConnection],
      useFactory: (options: SluiceModuleOptions, connection: SluiceConnection) =>
        trafficProfileOf(options, connection),
    },
    {
      provide: DECISION_STATS,
      inject: [SLUICE_OPTIONS, SluiceConnection, SLUICE_CLOCK],
      useFactory: (options: SluiceModuleOptions, connection: SluiceConnection, clock: Clock) =>
        connection.redis === undefined
          ? new LocalDecisionStats(clock)
          : new RedisDecisionStats(
              connection.redis,
              options.prefix ?? 'sluice',
              () =>
                connection.readRedis ?? (connection.redis as NonNullable<typeof connection.redis>),
            ),
    },
    {
      provide: LIST_HITS,
      inject: [SLUICE_OPTIONS, SluiceConnection],
      useFactory: (options: SluiceModuleOptions, connection: SluiceConnection) =>
        connection.redis === undefined
          ? new LocalListHits()
          : new RedisListHits(
              connection.redis,
              options.prefix ?? 'sluice',
              () =>
                connection.readRedis ?? (connection.redis as NonNullable<typeof connection.redis>),
            ),
    },
    ListHitTally,
    PolicyBus,
    PenaltyEventPublisher,
    IdentifierTally,
    DecisionTally,
    LocalFallback,
    StoreOutageDecider,
    RouteRegistry,
    RouteExplorer,
    SluiceTelemetry,
    CallDecider,
    ManualBlocks,
    SluiceService,
    BlockGate,
    PeerAddressesInstaller,
    SluiceGuard,
    { provide: GLOBAL_GUARD, useExisting: SluiceGuard },
  ],
  exports: [
    SLUICE_OPTIONS,
    SLUICE_CLOCK,
    SluiceConnection,
    SluiceEngine,
    PolicyRegistry,
    AccessLists,
    BlockCache,
    TrackerResolver,
    PolicyBus,
    PENALTY_STREAM,
    PenaltyEventPublisher,
    IDENTIFIER_STATS,
    TRAFFIC_PROFILE,
    REPLAY_STORE,
    IdentifierTally,
    DECISION_STATS,
    DecisionTally,
    ListHitTally,
    RouteRegistry,
    CallDecider,
    ManualBlocks,
    SluiceService,
    BlockGate,
    SluiceGuard,
  ],
})
export class SluiceModule {
  /**
   * Sluice with options known at start-up (docs/guide.md): policies, Redis, trackers; `global`
   * guards every route, `metrics` serves the Prometheus metrics.
   */
  static forRoot(options: SluiceModuleOptions & Partial<SluiceModuleExtras>): DynamicModule {
    return SluiceConfigurableModule.forRoot.call(this, options);
  }

  /** Sluice with options from a factory, a class or an existing provider (docs/guide.md). */
  static forRootAsync(options: SluiceModuleAsyncOptions): DynamicModule {
    return SluiceConfigurableModule.forRootAsync.call(this, options);
  }
}

// The builder's methods read its other static members through `this`: SluiceModule inherits them
// at run time, while its declared type names only its own two methods.
Object.setPrototypeOf(SluiceModule, SluiceConfigurableModule);

/** The traffic profile's store, as the module's `trafficProfile` asks, or null: none kept. */
function trafficProfileOf(
  options: SluiceModuleOptions,
  connection: SluiceConnection,
): TrafficProfileStore | null {
  const asked = options.trafficProfile;
  if (asked === false) return null;
  const limits = {
    sampleBound: asked?.sampleBound ?? DEFAULT_PROFILE_LIMITS.sampleBound,
    retentionMs:
      asked?.retentionHours === undefined
        ? DEFAULT_PROFILE_LIMITS.retentionMs
        : asked.retentionHours * 3_600_000,
  };
  const redis = connection.redis;
  if (redis === undefined) return new LocalTrafficProfile(limits);
  return new RedisTrafficProfile(
    redis,
    options.prefix ?? 'sluice',
    limits,
    () => connection.readRedis ?? redis,
  );
}

/** Where requests are recorded for replay, as `trafficProfile` asks, or null: none kept. */
function replayStoreOf(
  options: SluiceModuleOptions,
  connection: SluiceConnection,
): ReplayStore | null {
  const asked = options.trafficProfile;
  const maxRecords = asked === false ? 0 : (asked?.replayRecords ?? DEFAULT_MAX_RECORDS);
  if (maxRecords === 0) return null;
  const redis = connection.redis;
  const hours = asked === false ? undefined : asked?.retentionHours;
  const retentionMs = hours === undefined ? DEFAULT_RETENTION_MS : hours * 3_600_000;
  if (redis === undefined) return new LocalReplayStore(maxRecords, retentionMs);
  return new RedisReplayStore(
    redis,
    options.prefix ?? 'sluice',
    maxRecords,
    retentionMs,
    () => connection.readRedis ?? redis,
  );
}
