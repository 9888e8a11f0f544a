// The entry @sluice/admin is built on: everything an app imports from the root, plus exactly the
// parts of the core the admin uses (the bus, the stats stores, the penalty stream, the engine and
// its schema …); tests reach other parts through `@sluice/nest/src/…`. It follows @sluice/nest's
// version exactly and makes no promise to anyone else; docs/packaging.md says why.
export * from './index.js';
export { SluiceEngine, parsePolicy, type SluiceEngineOptions } from './engine/index.js';
export { PolicyBus } from './bus/policy.bus.js';
export type { ChannelListener, ChannelReader, PolicyChannel } from './bus/policy.channel.js';
export type { ChangeNotice, UnblockNotice } from './bus/policy-snapshot.js';
export { BlockCache, type CachedBlock } from './penalty/block.cache.js';
export type * from './store/store.types.js';
export { PeriodicTask } from './clock/periodic.task.js';
export { epochMs } from './clock/clock.js';
export { STALE_AFTER_MS } from './bus/instance.presence.js';
export type { InstanceHeartbeat } from './bus/instance.heartbeat.js';
export type { PolicySnapshot } from './bus/policy-snapshot.js';
export {
  IDENTIFIER_KEY,
  IDENTIFIER_KEY_RULE,
  isPlainIdentifier,
  PLAIN_IDENTIFIER_RULE,
  type Identifier,
} from './keys/identifier.js';
export { KEY_KIND, normalKeyKind, toIdentifier } from './keys/key.builder.js';
export { PenaltyEventPublisher, type PenaltyContext } from './events/penalty-event.publisher.js';
export type { PenaltyStream, PenaltyStreamEntry } from './penalty/penalty.stream.js';
export type {
  IdentifierCount,
  IdentifierReadOptions,
  IdentifierStatsStore,
} from './stats/identifier-stats.store.js';
export { parseMember } from './stats/identifier-stats.store.js';
export {
  RESOLUTION_MS,
  type DecisionCounts,
  type DecisionStatsStore,
  type PolicyCounts,
  type StatsResolution,
} from './stats/decision-stats.store.js';
export {
  calendarSchema,
  POLICY_NAME,
  policyInputSchema,
  TIER_NAME,
  TIER_NAME_RULE,
} from './policy/policy.schema.js';
export { isOwnPolicy, OWN_POLICY_PREFIX } from './policy/own.policies.js';
export { takesPlans } from './nest/identifier.plans.js';
export { compileAddressList } from './net/address-range.js';
export { compileUserAgentPattern, type UserAgentPattern } from './policy/user-agent.pattern.js';
export { traitsOf, type AlgorithmTraits } from './algorithms/algorithm.traits.js';
export { MAX_GRANT } from './engine/quota.operations.js';
export { candidateStatsName, sampledStatsName, tierStatsName } from './stats/decision-outcome.js';
export {
  DECISION_STATS,
  IDENTIFIER_STATS,
  PENALTY_STREAM,
  TRAFFIC_PROFILE,
  REPLAY_STORE,
} from './config/sluice.tokens.js';
export type { ReplayBatch, ReplayRead, ReplayStore } from './stats/replay.store.js';
export { replayRecords, type ReplayOutcome, type ReplayRecord } from './simulator/policy.replay.js';
export type { SimulatedPolicy } from './simulator/policy.simulator.js';
export type {
  ProfileCount,
  ProfileHour,
  ProfileLimits,
  ProfileRecord,
  ProfileSampling,
  TrafficProfileStore,
} from './stats/traffic-profile.store.js';
export {
  recommendLimit,
  type ProfileRecommendation,
  type ProfileRefusals,
} from './stats/profile.recommendation.js';
export {
  PROFILE_PERCENTILES,
  summarizeProfile,
  type ProfileIdentifier,
  type ProfileSummary,
} from './stats/profile.summary.js';
export {
  firstHourRead,
  HOUR_MS,
  profileWindowsOf,
  windowMsOf,
  type HourFields,
  type ProfileWindows,
} from './stats/traffic-profile.js';
export { profileOfRecords } from './stats/record.profile.js';
export { periodAt } from './clock/calendar.js';
export { TrackerResolver } from './trackers/tracker.resolver.js';
export {
  listEntryInputSchema,
  MAX_ENTRY_POLICIES,
  MAX_LIST_ENTRIES,
} from './lists/list-entry.schema.js';
export {
  AccessLists,
  type ListHits,
  type ListSubject,
  type ListVerdicts,
} from './lists/access-lists.js';
export { ListHitTally } from './stats/list-hit.tally.js';
export type { ListHitStore } from './stats/list-hits.store.js';
export { loadOptionalPeer } from './peers/optional-peer.loader.js';
export { ThrottledLogger, type LogSink } from './logging/throttled.logger.js';
