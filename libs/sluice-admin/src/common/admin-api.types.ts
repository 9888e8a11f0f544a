import type {
  Decision,
  Quota,
  InstanceHeartbeat,
  ListEntry,
  ListEntryInput,
  Policy,
  PolicyInput,
  ThrottledRoute,
} from '@sluice/nest/internals';
import type { AdminRole } from './admin-role.js';
import type { FieldIssue } from './invalid-request.exception.js';
import type { AppliedPolicyFile, PolicyDrift } from './policy-file.types.js';

export type { AdminRole, FieldIssue };

/** What every error response carries; 400s add `issues`, 409s `currentVersion`. */
export interface AdminErrorBody {
  /** The HTTP status, repeated. */
  statusCode: number;
  /** The status's name, e.g. `Bad Request`. */
  error: string;
  /** What went wrong; for a 400, every issue as `<field>: <why>`. */
  message: string;
  /** For a 400: each invalid field and why. */
  issues?: FieldIssue[];
  /** For a 409: the version the write should have been based on. */
  currentVersion?: number;
}

/** A handler a policy decides. */
export interface PolicyRoute {
  /** The HTTP method; null for GraphQL resolvers, gateways and other handlers. */
  method: string | null;
  /** The controller's and the method's paths joined; null for other handlers. */
  path: string | null;
  /** The controller, resolver or gateway class. */
  owner: string;
  /** The method's name. */
  handler: string;
  /** The tier `@ThrottleTier()` decides its requests at; null: the resolver's, or none. */
  tier: string | null;
  /**
   * A `key: 'user'` policy that counted a request on this route by its client address, on the
   * instance that answered, because no user was set when the guard ran.
   */
  countedByAddress: boolean;
}

/**
 * A stored policy, the routes it decides, the default code defines for it, if any, and whether
 * it has a shadow candidate (GET /policies/:name/candidate shows it).
 */
export interface PolicyView extends Omit<Policy, 'candidate'> {
  /** The handlers it decides. */
  routes: PolicyRoute[];
  /** The definition the app's code gives it, or null when it has none. */
  codeDefault: Policy | null;
  /** Its shadow candidate in brief, or null. */
  candidate: CandidateSummary | null;
  /** Whether it differs from its code default and from the policy file last applied. */
  drift: PolicyDrift;
}

/** Who proposed a policy's candidate, when, until when it runs, and against which version. */
export interface CandidateSummary {
  /** Who proposed it, or null. */
  proposedBy: string | null;
  /** When, ISO 8601. */
  proposedAt: string;
  /** When it stops being decided, ISO 8601. */
  expiresAt: string;
  /** The policy's version it was proposed against. */
  baseVersion: number;
  /** The share of identifiers, 1–100 percent, the candidate is decided for. */
  samplePercent: number;
}

/** GET /policies */
export interface PolicyList {
  /** The global version: it grows with every change to any policy or the switch. */
  version: number;
  /** False while the global switch suspends enforcement. */
  enforcement: boolean;
  /** Every stored policy, by name. */
  policies: PolicyView[];
  /** The policy file last applied (`npx sluice apply`), or null when none was. */
  file: AppliedPolicyFile | null;
}

/** PUT /policies/:name: a policy, the version it was read at (0 creates), and a note. */
export interface PolicyWriteRequest extends Omit<PolicyInput, 'name' | 'version' | 'candidate'> {
  /** The policy's name; when given, it must equal the path's. */
  name?: string;
  /** The version the write is based on (0 creates): a newer one answers 409. */
  version?: number;
  /** Why, recorded in the revision and the audit. */
  comment?: string | null;
}

/** POST /policies/:name/candidate: a revision as PUT takes it, and how long it may run. */
export interface CandidateProposal extends PolicyWriteRequest {
  /** Milliseconds from now until it is no longer decided; default a day, at most 7 days. */
  expiresInMs?: number;
  /**
   * The share of identifiers, 1–100 percent, it is decided for: default 5, which keeps a policy
   * with a candidate within 1.1× of its Redis cost without one (docs/operations.md).
   */
  samplePercent?: number;
}

/** POST /policies/:name/candidate/promote. */
export interface CandidatePromotion {
  /** Promote although the live policy changed since the candidate was proposed. */
  confirm?: boolean;
  /** Why, recorded in the promoted revision and the audit. */
  comment?: string | null;
}

/** A policy's shadow candidate, as proposed. */
export interface CandidateView {
  /** The policy's name. */
  policy: string;
  /** The proposed revision, validated, named as its policy. */
  rules: Policy;
  /** The policy's version it was proposed against. */
  baseVersion: number;
  /** Who proposed it, or null. */
  proposedBy: string | null;
  /** When, ISO 8601. */
  proposedAt: string;
  /** When it stops being decided, ISO 8601. */
  expiresAt: string;
  /** The proposal's note, or null. */
  comment: string | null;
  /** The share of identifiers, 1–100 percent, it is decided for. */
  samplePercent: number;
}

/** An identifier on which a candidate and its live policy answered differently. */
export interface CandidateDifference {
  /** The kind of identifier. */
  keyKind: string;
  /** Who, as an operator reads it. */
  identifier: string;
  /** Requests the candidate would have refused that the live policy admitted. */
  candidateRefuses: number;
  /** Requests the live policy refused that the candidate would have admitted. */
  liveRefuses: number;
  /** The last request on which they differed, ISO 8601. */
  lastSeen: string;
}

/** GET /policies/:name/candidate: the candidate and how it compares with the live policy. */
export interface CandidateComparison extends CandidateView {
  /** The live policy's version now. */
  liveVersion: number;
  /** The live policy changed since the proposal: promoting asks to confirm. */
  stale: boolean;
  /** The rule fields in which the candidate differs from the live policy. */
  changedFields: string[];
  /** The identifiers on which they differ most over the last day, candidate refusals first. */
  differences: CandidateDifference[];
}

/** DELETE /policies/:name and POST …/restore may carry a staleness check and a note. */
export interface ChangeNoteRequest {
  /** The version the change is based on: a newer one answers 409. */
  version?: number;
  /** Why, recorded in the revision and the audit. */
  comment?: string | null;
}

/** DELETE /policies/:name: the code default it returned to, or null when deleted. */
export interface PolicyRemovalResult {
  /** The global version after the removal. */
  version: number;
  /** The code default it returned to, or null when it is gone. */
  policy: PolicyView | null;
}

/** One stored revision of a policy. */
export interface PolicyRevision {
  /** The global version this revision made. */
  version: number;
  /**
   * What made it: `policy.create`, `policy.replace`, `policy.delete`, `policy.restore`,
   * `policy.promote` …
   */
  action: string;
  /** Null for a delete. */
  body: Policy | null;
  /** Who made it (`code` for code defaults). */
  actor: string;
  /** When, ISO 8601. */
  createdAt: string;
  /** The note given with it, or null. */
  comment: string | null;
}

/** GET /policies/:name/revisions, newest first. */
export interface PolicyRevisionList {
  /** Newest first. */
  revisions: PolicyRevision[];
}

/** PUT /enforcement's body. */
export interface EnforcementRequest {
  /** True enforces every policy; false lets every request pass, counting nothing. */
  enabled: boolean;
  /** Why, recorded in the audit. */
  comment?: string | null;
}

/** GET and PUT /enforcement */
export interface EnforcementState {
  /** Whether policies are enforced. */
  enabled: boolean;
  /** The global version. */
  version: number;
}

/** GET /routes */
export interface RouteList {
  /** Every handler under `@Throttle()` or `@SkipThrottle()`. */
  routes: readonly ThrottledRoute[];
}

/** An instance as its last heartbeat describes it. */
export interface InstanceView extends InstanceHeartbeat {
  /** No heartbeat for 30 s. */
  stale: boolean;
  /** Enforces the version Redis holds, every policy of it loaded (else `lastError` says which not). */
  upToDate: boolean;
}

/** GET /instances; `version` is the one Redis holds, null when none is published. */
export interface InstanceList {
  /** Every instance that sent a heartbeat recently, stale ones included. */
  instances: InstanceView[];
  /** The version Redis holds, or null. */
  version: number | null;
}

/** GET /inspect/:policy/:identifier: what a request would get now, nothing charged. */
export type InspectResult = Decision;

/** DELETE /counters/:policy/:identifier?forgetOffences=&key= */
export interface CounterResetResult {
  /** Always true: the counters are gone. */
  reset: true;
}

/**
 * GET /quotas/:policy/:identifier, and what POST …/grant answers: the quota's current period for
 * the identifier (`resetAt` epoch ms; `limit` the tier's when one applies).
 */
export type QuotaState = Quota;

/** GET /quotas/:policy/:identifier?tier= */
export type QuotaQuery = {
  /** Read as this tier; default the app's `tiers.ofIdentifier`, else an override's. */
  tier?: string;
};

/** POST /quotas/:policy/:identifier/grant */
export interface QuotaGrantRequest {
  /** Credits for the current period; negative debits. A non-zero integer. */
  amount: number;
  /** Why, as the audit records it. */
  note?: string | null;
  /** Grant as this tier reads the quota (see QuotaQuery). */
  tier?: string;
}

/** One write through the admin, with its actor. */
export interface AuditEntry {
  /** Increasing with every entry. */
  id: number;
  /** When, ISO 8601. */
  occurredAt: string;
  /** Who wrote (the credential's name). */
  actor: string;
  /** The client address the write came from, or null. */
  ip: string | null;
  /** Its User-Agent, or null. */
  userAgent: string | null;
  /** What was done: `policy.replace`, `block.create`, `counters.reset` … */
  action: string;
  /** What it was done to: a policy, or `<policy>/<identifier>`. */
  target: string;
  /** The state before, as the API returns it; null when created. */
  before: unknown;
  /** The state after; null when deleted. */
  after: unknown;
  /** The note given with it, or null. */
  comment: string | null;
  /** The global version after the change. */
  version: number;
}

/** GET /audit, newest first; pass `nextCursor` as `cursor` for the next page. */
export interface AuditPage {
  /** Newest first. */
  entries: AuditEntry[];
  /** Null on the last page. */
  nextCursor: string | null;
}

/** A block in force now, as the penalty history records it. */
export interface BlockedEntry {
  /** The policy whose block it is. */
  policy: string;
  /** The kind of identifier. */
  keyKind: string;
  /** Who, as an operator reads it (cut to 256 characters). */
  identifier: string;
  /**
   * For an identifier over 256 characters, which `identifier` shows cut: its stored key, which
   * names it whole. Pass it as `key` to lift or reset. Null when `identifier` is whole.
   */
  key: string | null;
  /** 0 for a manual block. */
  offence: number;
  /** `auto` when a penalty set it off, `manual` when set by hand. */
  source: 'auto' | 'manual';
  /** ISO 8601. */
  startedAt: string;
  /** ISO 8601. */
  expiresAt: string;
  /** ms until it ends. */
  timeLeftMs: number;
  /** Who set it by hand; null for an automatic block. */
  createdBy: string | null;
  /** The reason given by hand, or null. */
  reason: string | null;
  /** The handler whose request set it off (`Controller.method`), when one did. */
  route: string | null;
}

/** GET /blocked?policy=&q=&limit=: newest first; `total` counts every match. */
export interface BlockedList {
  /** The blocks of this page. */
  blocked: BlockedEntry[];
  /** Every block that matches. */
  total: number;
}

/** GET /penalties' query: identifier, policy, a time range (ISO 8601, `to` exclusive), a page. */
export type PenaltyQuery = {
  /** Exactly this identifier. */
  identifier?: string;
  /** Identifiers that contain this text (a user name inside `203.0.113.7/<name>`). */
  q?: string;
  /** Only this policy's blocks. */
  policy?: string;
  /** From this time, ISO 8601. */
  from?: string;
  /** Before this time, ISO 8601. */
  to?: string;
  /** The previous page's `nextCursor`. */
  cursor?: string;
  /** Records per page, 1 to 500. */
  limit?: number;
};

/** GET /audit's query: who, what, a time range (ISO 8601, `to` exclusive), a page. */
export type AuditQuery = {
  /** Only this actor's writes. */
  actor?: string;
  /** Only this action, e.g. `policy.replace`. */
  action?: string;
  /** From this time, ISO 8601. */
  from?: string;
  /** Before this time, ISO 8601. */
  to?: string;
  /** The previous page's `nextCursor`. */
  cursor?: string;
  /** Entries per page, 1 to 500. */
  limit?: number;
};

/** POST /blocked */
export interface BlockRequest {
  /** The policy to block under. */
  policy: string;
  /** Who: 1 to 256 characters, no control characters. */
  identifier: string;
  /** How long, ms. */
  durationMs: number;
  /** Why, recorded in the history and the audit. */
  reason?: string | null;
  /** What the identifier is; default the policy's `key`. */
  keyKind?: string;
}

/** One allow or deny list entry, with what it matched on every instance. */
export interface ListEntryView extends ListEntry {
  /** True once its expiry has passed: it no longer applies, and stays listed until removed. */
  expired: boolean;
  /**
   * Calls it decided (`enforced`) or would have decided (`shadow`), summed over every instance
   * as each sends them once a second.
   */
  hits: { enforced: number; shadow: number };
}

/** GET /lists: every entry, the oldest first, and how many the lists may hold. */
export interface ListEntryList {
  /** The entries. */
  entries: ListEntryView[];
  /** How many entries the lists hold at most, together. */
  max: number;
}

/** POST /lists: an entry as an operator writes it. */
export type ListEntryRequest = ListEntryInput;

/** DELETE /lists/:id: the entry is gone from every instance. */
export interface ListEntryRemoval {
  /** Always true. */
  removed: true;
  /** The global version the removal made. */
  version: number;
}

/** A block set by hand. */
export interface BlockResult {
  /** The policy it is under. */
  policy: string;
  /** The kind of identifier. */
  keyKind: string;
  /** Who. */
  identifier: string;
  /** When it ends, ISO 8601. */
  expiresAt: string;
}

/** DELETE /blocked/:policy/:identifier?keyKind=&reason=&forgetOffences=&key= */
export interface UnblockResult {
  /** Always true: the block was lifted. */
  lifted: true;
}

/** `active` until it ends; `expired` when it ran its course; `lifted` by hand or by a newer block. */
export type PenaltyState = 'active' | 'expired' | 'lifted';

/** One block in the penalty history. */
export interface PenaltyRecord {
  /** The penalty event's id. */
  id: string;
  /** The policy whose block it is. */
  policy: string;
  /** The policy snapshot version the instance enforced. */
  policyVersion: number;
  /** The kind of identifier. */
  keyKind: string;
  /** Who, as an operator reads it (cut to 256 characters). */
  identifier: string;
  /**
   * For an identifier over 256 characters, which `identifier` shows cut: its stored key, which
   * names it whole. Pass it as `key` to lift or reset. Null when `identifier` is whole.
   */
  key: string | null;
  /** The offence level of an automatic block; 0 for a manual one. */
  offence: number;
  /** What set off an automatic block; null for a manual one. */
  trigger: { count: number; limit: number; windowMs: number; algorithm: string } | null;
  /** ISO 8601. */
  startedAt: string;
  /** When it ends or ended, ISO 8601. */
  expiresAt: string;
  /** How long it was set for, ms. */
  durationMs: number;
  /** `auto` when a penalty set it off, `manual` when set by hand. */
  source: 'auto' | 'manual';
  /** Who set it by hand; null for an automatic block. */
  createdBy: string | null;
  /** The reason given by hand, or null. */
  reason: string | null;
  /** Whether it is in force, ran its course, or was lifted. */
  state: PenaltyState;
  /** When it was lifted, ISO 8601, or null. */
  liftedAt: string | null;
  /** Who lifted it, or null (a newer block replaced it). */
  liftedBy: string | null;
  /** The reason given for lifting, or null. */
  liftReason: string | null;
  /** The instance that saw it start, or null. */
  instanceId: string | null;
  /** The handler whose request set it off (`Controller.method`), when one did. */
  route: string | null;
}

/** GET /penalties, newest first; pass `nextCursor` as `cursor` for the next page. */
export interface PenaltyPage {
  /** Newest first. */
  penalties: PenaltyRecord[];
  /** Null on the last page. */
  nextCursor: string | null;
}

/** One identifier under one policy: its traffic over the last day, and its state now. */
export interface IdentifierView {
  /** The policy. */
  policy: string;
  /** The kind of identifier. */
  keyKind: string;
  /** Who, as an operator reads it (cut to 256 characters). */
  identifier: string;
  /**
   * For an identifier over 256 characters, which `identifier` shows cut: its stored key, which
   * names it whole. Pass it as `key` to lift or reset. Null when `identifier` is whole.
   */
  key: string | null;
  /** Requests admitted over the last day. */
  passed: number;
  /** Requests refused over the last day. */
  rejected: number;
  /** Its last request, ISO 8601. */
  lastSeen: string;
  /** Its state now, read from Redis. */
  state: {
    /** Whether a block is in force. */
    blocked: boolean;
    /** When the block ends; null when not blocked. */
    blockedUntil: string | null;
    /** What its next request would be told, nothing charged. */
    remaining: number;
    /** The limit that applies to it (its override's, else the policy's). */
    limit: number;
    /** ms until its next request would be admitted; 0 if now. */
    retryAfterMs: number;
  };
}

/** GET /identifiers?policy=&q=&limit=: the most rejected first, then the most passed. */
export interface IdentifierList {
  /** The most rejected first, then the most passed. */
  identifiers: IdentifierView[];
}

/** GET /session and POST /session's answer: who is signed in. */
export interface SessionView {
  /** The credential's name. */
  name: string;
  /** What it may do. */
  role: AdminRole;
}

/** POST /session: a credential's name and its token. */
export interface SignInRequest {
  /** The credential's name. */
  name: string;
  /** Its token. */
  password: string;
}

/** What the instances count of their decisions, per policy and second (docs/architecture.md, live counters). */
export const DECISION_COUNTS = [
  'allowed',
  'rejected',
  'blocked',
  'delayed',
  'shadowRejected',
  'storeError',
] as const;

/** One of {@link DECISION_COUNTS}. */
export type DecisionCountName = (typeof DECISION_COUNTS)[number];

/** A count of each kind of decision. */
export type DecisionCounts = Record<DecisionCountName, number>;

/** One second (or minute) of decisions, summed over every instance; policies with none left out. */
export interface StatsPoint {
  /** The start of the second or minute. */
  at: string;
  /** Each policy's counts in that second or minute. */
  policies: Record<string, DecisionCounts>;
}

/** GET /stats?seconds=N (at most 300), ?minutes=N (at most 180) or ?hours=N (at most 168), oldest first. */
export interface StatsSeries {
  /** What each point covers. */
  resolution: 'second' | 'minute' | 'hour';
  /** Oldest first. */
  points: StatsPoint[];
}

/**
 * GET /events, Server-Sent Events: `stats` (a StatsPoint) for each second once it has passed,
 * `instances` (an InstanceList) every two seconds, and `unavailable` when one of them could not
 * be read (Redis did not answer); the stream goes on.
 */
export interface AdminEventMap {
  /** A second that has passed, summed over every instance. */
  stats: StatsPoint;
  /** Every instance, every two seconds. */
  instances: InstanceList;
  /** Redis did not answer; the stream goes on. */
  unavailable: { message: string };
}

/** GET /blocked's query. */
export type BlockedQuery = {
  /** Only this policy's blocks. */
  policy?: string;
  /** Identifiers that contain this text. */
  q?: string;
  /** Blocks returned at most, 1 to 10 000. */
  limit?: number;
};

/** GET /identifiers' query. */
export type IdentifiersQuery = {
  /** Only this policy. */
  policy?: string;
  /** Identifiers that contain this text. */
  q?: string;
  /** Identifiers returned at most, 1 to 200. */
  limit?: number;
};

/** DELETE /blocked/:policy/:identifier's query; `key` names an identifier shown cut. */
export type UnblockQuery = {
  /** The kind of identifier; default the policy's `key`. */
  keyKind?: string;
  /** Why, recorded in the history and the audit. */
  reason?: string | null;
  /** Also forget its offences, so its next block starts again at the first. */
  forgetOffences?: boolean;
  /** The stored key of an identifier shown cut. */
  key?: string;
};

/** DELETE /counters/:policy/:identifier's query. */
export type CounterResetQuery = {
  /** Also forget its offences, so its next block starts again at the first. */
  forgetOffences?: boolean;
  /** The stored key of an identifier shown cut. */
  key?: string;
};

/** GET /stats' query: one of seconds, minutes or hours, and a policy. */
export type StatsQuery = {
  /** The last N seconds, 1 to 300. */
  seconds?: number;
  /** The last N minutes, 1 to 180. */
  minutes?: number;
  /** The last N hours, 1 to 168. */
  hours?: number;
  /** Only this policy. */
  policy?: string;
};
