// The entry @sluice/admin (and the repository's demo and tests) are built on: the bus, the stats
// stores, the penalty stream and the other parts an app does not touch. It follows @sluice/nest's
// version exactly and makes no promise to anyone else; docs/packaging.md says why.
export { PolicyBus } from './bus/policy.bus.js';
export type { InstanceHeartbeat } from './bus/instance.heartbeat.js';
export type { ChangeNotice, PolicySnapshot, UnblockNotice } from './bus/policy-snapshot.js';
export { ALGORITHM_CODES, ALGORITHMS, type AlgorithmName } from './algorithms/algorithm.types.js';
export { ManualClock, systemClock, type Clock } from './clock/clock.js';
export type {
  AppliedOverride,
  Decision,
  DecisionReason,
  PolicyDecision,
} from './engine/decision.js';
export {
  SluiceEngine,
  type ConsumeOptions,
  type SluiceEngineOptions,
} from './engine/sluice.engine.js';
export { InvalidIdentifierError, type Identifier } from './keys/identifier.js';
export { identifierKey, toIdentifier } from './keys/key.builder.js';
export {
  PENALTY_EVENT_TYPES,
  parsePenaltyEvent,
  type PenaltyEvent,
  type PenaltyEventType,
  type PenaltyTrigger,
} from './penalty/penalty.event.js';
export { PenaltyEventPublisher, type PenaltyContext } from './penalty/penalty-event.publisher.js';
export type { PenaltyStream, PenaltyStreamEntry } from './penalty/penalty.stream.js';
export { LocalPenaltyStream } from './penalty/local-penalty.stream.js';
export { RedisPenaltyStream } from './penalty/redis-penalty.stream.js';
export {
  MAX_IDENTIFIERS_PER_POLICY,
  type IdentifierCount,
  type IdentifierStatsStore,
} from './stats/identifier-stats.store.js';
export { IdentifierTally } from './stats/identifier.tally.js';
export {
  COUNT_NAMES,
  RESOLUTION_MS,
  STATS_RETENTION_MS,
  type DecisionCounts,
  type DecisionStatsStore,
  type PolicyCounts,
  type StatsResolution,
} from './stats/decision-stats.store.js';
export { DecisionTally } from './stats/decision.tally.js';
export { LocalDecisionStats } from './stats/local-decision.stats.js';
export { RedisDecisionStats } from './stats/redis-decision.stats.js';
export { RedisIdentifierStats } from './stats/redis-identifier.stats.js';
export { PolicyRegistry, UnknownPolicyError } from './policy/policy.registry.js';
export {
  MAX_LIMIT,
  MAX_PERIOD_MS,
  POLICY_NAME,
  parsePolicy,
  policyInputSchema,
} from './policy/policy.schema.js';
export type {
  PenaltyOptions,
  Policy,
  PolicyInput,
  PolicyMode,
  PolicyOverride,
  StoreErrorMode,
} from './policy/policy.types.js';
export { PolicyValidationError, type PolicyIssue } from './policy/policy-validation.error.js';
export { MemoryStore, type MemoryStoreOptions } from './store/memory.store.js';
export { RedisStore, type RedisStoreOptions } from './store/redis.store.js';
export { CircuitOpenError } from './store/circuit.breaker.js';
export { StoreTimeoutError } from './store/reply.deadline.js';
export type {
  Operation,
  OutcomeReason,
  PenaltyRule,
  PolicyOutcome,
  PolicySpec,
  SluiceStore,
  StoreCall,
  StoreResult,
} from './store/store.types.js';
export { BlockCache, type CachedBlock } from './nest/block.cache.js';
export { SluiceMetrics } from './metrics/sluice.metrics.js';
export { outcomeOf, type DecisionOutcome } from './stats/decision-outcome.js';
export { RouteRegistry, type ThrottledRoute } from './nest/route.registry.js';
export { SluiceConnection } from './nest/sluice.connection.js';
export { SluiceGuard, type RequestResponse } from './nest/sluice.guard.js';
export { SluiceModule } from './nest/sluice.module.js';
export {
  SLUICE_ASYNC_OPTIONS_TYPE,
  SLUICE_OPTIONS,
  SLUICE_OPTIONS_TYPE,
} from './nest/sluice.module-definition.js';
export type {
  HeaderStyle,
  SluiceModuleExtras,
  SluiceModuleOptions,
  Tracker,
} from './nest/sluice-options.interface.js';
export { SluiceService, type ManualBlockOptions } from './nest/sluice.service.js';
export {
  DECISION_STATS,
  IDENTIFIER_STATS,
  PENALTY_STREAM,
  SKIP_THROTTLE_METADATA,
  SLUICE_CLOCK,
  THROTTLE_METADATA,
} from './nest/sluice.tokens.js';
export {
  SkipThrottle,
  Throttle,
  type PolicyDefaults,
  type ThrottleMetadata,
} from './nest/throttle.decorator.js';
export { TooManyRequestsException } from './nest/too-many-requests.exception.js';
export { type TrustProxy } from './trackers/client-address.js';
export { TrackerResolver, UNKNOWN_ADDRESS, type Tracked } from './trackers/tracker.resolver.js';
export { loadOptionalPeer } from './peers/optional-peer.loader.js';
export { SluiceStartError } from './peers/start.error.js';
