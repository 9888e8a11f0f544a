import type {
  Decision,
  InstanceHeartbeat,
  Policy,
  PolicyInput,
  ThrottledRoute,
} from '@sluice/nest/internals';
import type { AdminRole } from './admin-role.js';
import type { FieldIssue } from './invalid-request.exception.js';

export type { AdminRole, FieldIssue };

/** What every error response carries; 400s add `issues`, 409s `currentVersion`. */
export interface AdminErrorBody {
  statusCode: number;
  error: string;
  message: string;
  issues?: FieldIssue[];
  currentVersion?: number;
}

/** A handler a policy decides. */
export interface PolicyRoute {
  method: string | null;
  path: string | null;
  owner: string;
  handler: string;
}

/**
 * A stored policy, the routes it decides, the default code defines for it, if any, and whether
 * it has a shadow candidate (GET /policies/:name/candidate shows it).
 */
export interface PolicyView extends Omit<Policy, 'candidate'> {
  routes: PolicyRoute[];
  codeDefault: Policy | null;
  candidate: CandidateSummary | null;
}

/** Who proposed a policy's candidate, when, until when it runs, and against which version. */
export interface CandidateSummary {
  proposedBy: string | null;
  proposedAt: string;
  expiresAt: string;
  baseVersion: number;
  /** The share of identifiers, 1–100 percent, the candidate is decided for. */
  samplePercent: number;
}

/** GET /policies */
export interface PolicyList {
  version: number;
  enforcement: boolean;
  policies: PolicyView[];
}

/** PUT /policies/:name: a policy, the version it was read at (0 creates), and a note. */
export interface PolicyWriteRequest extends Omit<PolicyInput, 'name' | 'version' | 'candidate'> {
  name?: string;
  version?: number;
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
  comment?: string | null;
}

/** A policy's shadow candidate, as proposed. */
export interface CandidateView {
  policy: string;
  /** The proposed revision, validated, named as its policy. */
  rules: Policy;
  /** The policy's version it was proposed against. */
  baseVersion: number;
  proposedBy: string | null;
  proposedAt: string;
  expiresAt: string;
  comment: string | null;
  /** The share of identifiers, 1–100 percent, it is decided for. */
  samplePercent: number;
}

/** An identifier on which a candidate and its live policy answered differently. */
export interface CandidateDifference {
  keyKind: string;
  identifier: string;
  /** Requests the candidate would have refused that the live policy admitted. */
  candidateRefuses: number;
  /** Requests the live policy refused that the candidate would have admitted. */
  liveRefuses: number;
  lastSeen: string;
}

/** GET /policies/:name/candidate: the candidate and how it compares with the live policy. */
export interface CandidateComparison extends CandidateView {
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
  version?: number;
  comment?: string | null;
}

/** DELETE /policies/:name: the code default it returned to, or null when deleted. */
export interface PolicyRemovalResult {
  version: number;
  policy: PolicyView | null;
}

export interface PolicyRevision {
  version: number;
  action: string;
  /** Null for a delete. */
  body: Policy | null;
  actor: string;
  createdAt: string;
  comment: string | null;
}

/** GET /policies/:name/revisions, newest first. */
export interface PolicyRevisionList {
  revisions: PolicyRevision[];
}

/** PUT /enforcement's body. */
export interface EnforcementRequest {
  enabled: boolean;
  comment?: string | null;
}

/** GET and PUT /enforcement */
export interface EnforcementState {
  enabled: boolean;
  version: number;
}

/** GET /routes */
export interface RouteList {
  routes: readonly ThrottledRoute[];
}

export interface InstanceView extends InstanceHeartbeat {
  /** No heartbeat for 30 s. */
  stale: boolean;
  /** Enforces the version Redis holds, every policy of it loaded (else `lastError` says which not). */
  upToDate: boolean;
}

/** GET /instances; `version` is the one Redis holds, null when none is published. */
export interface InstanceList {
  instances: InstanceView[];
  version: number | null;
}

/** GET /inspect/:policy/:identifier: what a request would get now, nothing charged. */
export type InspectResult = Decision;

/** DELETE /counters/:policy/:identifier?forgetOffences=&key= */
export interface CounterResetResult {
  reset: true;
}

export interface AuditEntry {
  id: number;
  occurredAt: string;
  actor: string;
  ip: string | null;
  userAgent: string | null;
  action: string;
  target: string;
  before: unknown;
  after: unknown;
  comment: string | null;
  /** The global version after the change. */
  version: number;
}

/** GET /audit, newest first; pass `nextCursor` as `cursor` for the next page. */
export interface AuditPage {
  entries: AuditEntry[];
  nextCursor: string | null;
}

/** A block in force now, as the penalty history records it. */
export interface BlockedEntry {
  policy: string;
  keyKind: string;
  identifier: string;
  /**
   * For an identifier over 256 characters, which `identifier` shows cut: its stored key, which
   * names it whole. Pass it as `key` to lift or reset. Null when `identifier` is whole.
   */
  key: string | null;
  /** 0 for a manual block. */
  offence: number;
  source: 'auto' | 'manual';
  startedAt: string;
  expiresAt: string;
  timeLeftMs: number;
  createdBy: string | null;
  reason: string | null;
  route: string | null;
}

/** GET /blocked?policy=&q=&limit=: newest first; `total` counts every match. */
export interface BlockedList {
  blocked: BlockedEntry[];
  total: number;
}

/** GET /penalties' query: identifier, policy, a time range (ISO 8601, `to` exclusive), a page. */
export type PenaltyQuery = {
  identifier?: string;
  /** Identifiers that contain this text (a user name inside `203.0.113.7/<name>`). */
  q?: string;
  policy?: string;
  from?: string;
  to?: string;
  cursor?: string;
  limit?: number;
};

/** GET /audit's query: who, what, a time range (ISO 8601, `to` exclusive), a page. */
export type AuditQuery = {
  actor?: string;
  action?: string;
  from?: string;
  to?: string;
  cursor?: string;
  limit?: number;
};

/** POST /blocked */
export interface BlockRequest {
  policy: string;
  identifier: string;
  durationMs: number;
  reason?: string | null;
  /** What the identifier is; default the policy's `key`. */
  keyKind?: string;
}

export interface BlockResult {
  policy: string;
  keyKind: string;
  identifier: string;
  expiresAt: string;
}

/** DELETE /blocked/:policy/:identifier?keyKind=&reason=&forgetOffences=&key= */
export interface UnblockResult {
  lifted: true;
}

/** `active` until it ends; `expired` when it ran its course; `lifted` by hand or by a newer block. */
export type PenaltyState = 'active' | 'expired' | 'lifted';

/** One block in the penalty history. */
export interface PenaltyRecord {
  id: string;
  policy: string;
  policyVersion: number;
  keyKind: string;
  identifier: string;
  /**
   * For an identifier over 256 characters, which `identifier` shows cut: its stored key, which
   * names it whole. Pass it as `key` to lift or reset. Null when `identifier` is whole.
   */
  key: string | null;
  offence: number;
  trigger: { count: number; limit: number; windowMs: number; algorithm: string } | null;
  startedAt: string;
  expiresAt: string;
  durationMs: number;
  source: 'auto' | 'manual';
  createdBy: string | null;
  reason: string | null;
  state: PenaltyState;
  liftedAt: string | null;
  liftedBy: string | null;
  liftReason: string | null;
  instanceId: string | null;
  route: string | null;
}

/** GET /penalties, newest first; pass `nextCursor` as `cursor` for the next page. */
export interface PenaltyPage {
  penalties: PenaltyRecord[];
  nextCursor: string | null;
}

/** One identifier under one policy: its traffic over the last day, and its state now. */
export interface IdentifierView {
  policy: string;
  keyKind: string;
  identifier: string;
  /**
   * For an identifier over 256 characters, which `identifier` shows cut: its stored key, which
   * names it whole. Pass it as `key` to lift or reset. Null when `identifier` is whole.
   */
  key: string | null;
  passed: number;
  rejected: number;
  lastSeen: string;
  state: {
    blocked: boolean;
    /** When the block ends; null when not blocked. */
    blockedUntil: string | null;
    /** What its next request would be told, nothing charged. */
    remaining: number;
    limit: number;
    retryAfterMs: number;
  };
}

/** GET /identifiers?policy=&q=&limit=: the most rejected first, then the most passed. */
export interface IdentifierList {
  identifiers: IdentifierView[];
}

/** GET /session and POST /session's answer: who is signed in. */
export interface SessionView {
  name: string;
  role: AdminRole;
}

/** POST /session: a credential's name and its token. */
export interface SignInRequest {
  name: string;
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

export type DecisionCountName = (typeof DECISION_COUNTS)[number];

export type DecisionCounts = Record<DecisionCountName, number>;

/** One second (or minute) of decisions, summed over every instance; policies with none left out. */
export interface StatsPoint {
  /** The start of the second or minute. */
  at: string;
  policies: Record<string, DecisionCounts>;
}

/** GET /stats?seconds=N (at most 300), ?minutes=N (at most 180) or ?hours=N (at most 168), oldest first. */
export interface StatsSeries {
  resolution: 'second' | 'minute' | 'hour';
  points: StatsPoint[];
}

/**
 * GET /events, Server-Sent Events: `stats` (a StatsPoint) for each second once it has passed,
 * `instances` (an InstanceList) every two seconds, and `unavailable` when one of them could not
 * be read (Redis did not answer); the stream goes on.
 */
export interface AdminEventMap {
  stats: StatsPoint;
  instances: InstanceList;
  unavailable: { message: string };
}

/** GET /blocked's query. */
export type BlockedQuery = { policy?: string; q?: string; limit?: number };

/** GET /identifiers' query. */
export type IdentifiersQuery = { policy?: string; q?: string; limit?: number };

/** DELETE /blocked/:policy/:identifier's query; `key` names an identifier shown cut. */
export type UnblockQuery = {
  keyKind?: string;
  reason?: string | null;
  forgetOffences?: boolean;
  key?: string;
};

/** DELETE /counters/:policy/:identifier's query. */
export type CounterResetQuery = { forgetOffences?: boolean; key?: string };

/** GET /stats' query: one of seconds, minutes or hours, and a policy. */
export type StatsQuery = { seconds?: number; minutes?: number; hours?: number; policy?: string };
