// The engine without Nest: decide in Redis or in memory from any Node program.
export { SluiceEngine } from './sluice.engine.js';
export type {
  Charged,
  ConsumeOptions,
  KeyOptions,
  Quota,
  QuotaOptions,
  SluiceEngineOptions,
} from './engine.types.js';
export type { CallTarget, PolicySelection } from './call.target.js';
export {
  AccessLists,
  type ListHits,
  type ListSubject,
  type ListVerdicts,
} from '../lists/access-lists.js';
export type {
  ListEntry,
  ListEntryInput,
  ListMatchKind,
  ListName,
} from '../lists/list-entry.schema.js';
export { MemoryStore, type MemoryStoreOptions } from '../store/memory.store.js';
export {
  EventualStore,
  type EventualCounts,
  type EventualStoreOptions,
  type Scheduler,
} from '../store/eventual.store.js';
export { RedisStore, type RedisStoreOptions, type ScriptingMode } from '../store/redis.store.js';
export type {
  NodeRedisClient,
  NodeRedisCluster,
  NodeRedisConnection,
} from '../store/node-redis.client.js';
export type {
  CallWatcher,
  Operation,
  OutcomeReason,
  PolicyOutcome,
  PolicySpec,
  SluiceStore,
  StoreCall,
  StoreResult,
} from '../store/store.types.js';
export { CircuitOpenError } from '../store/circuit.breaker.js';
export { StoreTimeoutError } from '../store/reply.deadline.js';
export { ManualClock, systemClock, type Clock } from '../clock/clock.js';
export { parsePolicy } from '../policy/policy.schema.js';
export { PolicyValidationError, type PolicyIssue } from '../policy/policy-validation.error.js';
export { PolicyRegistry, UnknownPolicyError } from '../policy/policy.registry.js';
export { InvalidIdentifierError } from '../keys/identifier.js';
export { ALGORITHMS, type AlgorithmName } from '../algorithms/algorithm.types.js';
export {
  CALENDAR_UNITS,
  type Calendar,
  type CalendarPeriod,
  type CalendarUnit,
} from '../clock/calendar.js';
export type { AppliedOverride, Decision, DecisionReason, PolicyDecision } from './decision.js';
export type {
  CalendarInput,
  CandidateRulesInput,
  Consistency,
  PenaltyOptions,
  Policy,
  PolicyCandidate,
  PolicyCandidateInput,
  PolicyInput,
  PolicyMode,
  PolicyOverride,
  StoreErrorMode,
  TierRate,
  UsageInput,
} from '../policy/policy.types.js';
