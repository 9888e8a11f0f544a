// The entry @sluice/admin (and the repository's demo and tests) are built on: everything an app
// imports from the root and the engine, plus the bus, the stats stores, the penalty stream and the
// other parts an app does not touch. It follows @sluice/nest's version exactly and makes no
// promise to anyone else; docs/packaging.md says why.
export * from './index.js';
export {
  CircuitOpenError,
  EventualStore,
  MemoryStore,
  RedisStore,
  SluiceEngine,
  StoreTimeoutError,
  parsePolicy,
  type ConsumeOptions,
  type MemoryStoreOptions,
  type RedisStoreOptions,
  type ScriptingMode,
  type SluiceEngineOptions,
  type SluiceStore,
} from './engine/index.js';
export { PolicyBus } from './bus/policy.bus.js';
export { PeriodicTask } from './clock/periodic.task.js';
export { STALE_AFTER_MS } from './bus/instance.presence.js';
export type { InstanceHeartbeat } from './bus/instance.heartbeat.js';
export type { ChangeNotice, PolicySnapshot, UnblockNotice } from './bus/policy-snapshot.js';
export { ALGORITHM_CODES } from './algorithms/algorithm.types.js';
export {
  IDENTIFIER_KEY,
  IDENTIFIER_KEY_RULE,
  isPlainIdentifier,
  PLAIN_IDENTIFIER_RULE,
  type Identifier,
} from './keys/identifier.js';
export { identifierKey, KEY_KIND, toIdentifier } from './keys/key.builder.js';
export {
  PENALTY_EVENT_TYPES,
  parsePenaltyEvent,
  type PenaltyTrigger,
} from './penalty/penalty.event.js';
export { PenaltyEventPublisher, type PenaltyContext } from './events/penalty-event.publisher.js';
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
  STATS_RESOLUTIONS,
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
export {
  MAX_LIMIT,
  MAX_PERIOD_MS,
  POLICY_NAME,
  policyInputSchema,
} from './policy/policy.schema.js';
export type {
  Operation,
  OutcomeReason,
  PenaltyRule,
  PolicyOutcome,
  PolicySpec,
  StoreCall,
  StoreResult,
} from './store/store.types.js';
export { BlockCache, type CachedBlock } from './penalty/block.cache.js';
export { SluiceMetrics } from './metrics/sluice.metrics.js';
export {
  candidateStatsName,
  outcomeOf,
  sampledStatsName,
  type DecisionOutcome,
} from './stats/decision-outcome.js';
export { SluiceConnection } from './connection/sluice.connection.js';
export {
  SLUICE_ASYNC_OPTIONS_TYPE,
  SLUICE_OPTIONS,
  SLUICE_OPTIONS_TYPE,
} from './nest/sluice.module-definition.js';
export {
  DECISION_STATS,
  IDENTIFIER_STATS,
  PENALTY_STREAM,
  SKIP_THROTTLE_METADATA,
  THROTTLE_METADATA,
} from './config/sluice.tokens.js';
export { TrackerResolver, UNKNOWN_ADDRESS } from './trackers/tracker.resolver.js';
export { loadOptionalPeer } from './peers/optional-peer.loader.js';
export { ThrottledLogger, type LogSink } from './logging/throttled.logger.js';
export { SluiceStartError } from './peers/start.error.js';
