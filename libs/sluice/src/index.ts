// What a Nest app writes against. The engine without Nest, the @nestjs/throttler storage and the
// simulator have entries of their own; docs/packaging.md lists them all.
export { SluiceModule } from './nest/sluice.module.js';
export type { SluiceModuleAsyncOptions } from './nest/sluice.module-definition.js';
export type {
  HeaderStyle,
  SluiceModuleExtras,
  SluiceModuleOptions,
} from './config/sluice-options.interface.js';
export type {
  NodeRedisClient,
  NodeRedisCluster,
  NodeRedisConnection,
} from './store/node-redis.client.js';
export type { TrackedClient, Tracker } from './trackers/tracker.interface.js';
export type { TrustProxy } from './trackers/client-address.js';
export type { PlanAnswer, TierOptions, TierSource } from './trackers/tier.resolver.js';
export {
  SkipThrottle,
  Throttle,
  ThrottleTier,
  type PolicyDefaults,
  type ThrottleMetadata,
} from './metadata/throttle.decorator.js';
export { SluiceGuard, type RequestResponse } from './nest/sluice.guard.js';
export { SluiceTestingModule, type SluiceTestingOptions } from './testing/sluice-testing.module.js';
export { RouteRegistry, type ThrottledRoute } from './nest/route.registry.js';
export type { Tracked } from './trackers/tracker.resolver.js';
export { SluiceService } from './nest/sluice.service.js';
export type {
  GrantAudit,
  GrantOptions,
  GrantRecord,
  IdentifierTier,
  LiftOptions,
  ManualBlockOptions,
} from './nest/sluice-service.types.js';
export type {
  Charged,
  ConsumeOptions,
  KeyOptions,
  Quota,
  QuotaOptions,
} from './engine/engine.types.js';
export type { CallTarget } from './engine/call.target.js';
export type { PolicySelection } from './engine/call.target.js';
export { SLUICE_CLOCK } from './config/sluice.tokens.js';
export { TooManyRequestsException } from './nest/too-many-requests.exception.js';
export {
  GraphQLRefusalException,
  type GraphQLRefusalExtensions,
} from './nest/graphql-refusal.exception.js';
export type {
  AppliedOverride,
  Decision,
  DecisionReason,
  PolicyDecision,
} from './engine/decision.js';
export type {
  ListEntry,
  ListEntryInput,
  ListMatchKind,
  ListName,
} from './lists/list-entry.schema.js';
export { ALGORITHMS, type AlgorithmName } from './algorithms/algorithm.types.js';
export {
  CALENDAR_UNITS,
  type Calendar,
  type CalendarPeriod,
  type CalendarUnit,
} from './clock/calendar.js';
export type {
  CandidateRulesInput,
  CalendarInput,
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
} from './policy/policy.types.js';
export { PolicyValidationError, type PolicyIssue } from './policy/policy-validation.error.js';
export { PolicyRegistry, UnknownPolicyError } from './policy/policy.registry.js';
export { InvalidIdentifierError } from './keys/identifier.js';
export { ManualClock, systemClock, type Clock } from './clock/clock.js';
export {
  PENALTY_EVENT_TYPES,
  type PenaltyEvent,
  type PenaltyEventType,
  type PenaltyTrigger,
} from './penalty/penalty.event.js';
