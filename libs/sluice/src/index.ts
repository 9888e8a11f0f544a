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
export { PolicyRegistry, UnknownPolicyError } from './policy/policy.registry.js';
export { parsePolicy } from './policy/policy.schema.js';
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
