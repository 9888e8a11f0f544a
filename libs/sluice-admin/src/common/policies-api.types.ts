import type { Policy, PolicyInput, ThrottledRoute } from '@sluice/nest/internals';
import type { FieldIssue } from './invalid-request.exception.js';
import type { AppliedPolicyFile, PolicyDrift } from './policy-file.types.js';

// The admin API's types: policies, their candidates and revisions, enforcement and routes.

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

/** An override as the API writes it: its expiry in ISO 8601 (UTC), or null: never. */
export type ApiOverride = Omit<Policy['overrides'][number], 'expiresAt'> & {
  /** ISO 8601, UTC; null: never. PUT takes ISO 8601 with any offset, or epoch ms. */
  expiresAt: string | null;
};

/**
 * A validated policy as the API writes it: every time in ISO 8601 (docs/operations.md, "Times
 * and durations"). Its candidate is answered on its own (GET /policies/:name/candidate).
 */
export type ApiPolicy = Omit<Policy, 'overrides' | 'candidate'> & {
  /** Other limits for single identifiers. */
  overrides: ApiOverride[];
};

/**
 * A stored policy, the routes it decides, the default code defines for it, if any, and whether
 * it has a shadow candidate (GET /policies/:name/candidate shows it).
 */
export interface PolicyView extends Omit<ApiPolicy, 'candidate'> {
  /** The handlers it decides. */
  routes: PolicyRoute[];
  /** The definition the app's code gives it, or null when it has none. */
  codeDefault: ApiPolicy | null;
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

/**
 * PUT /policies/:name's query: `confirm=reset` for a change that starts every identifier's count
 * afresh (another algorithm; a fixed-window's calendar, zone, anchor or period); without it such a
 * change is refused (400, naming `confirm`, saying what it resets).
 */
export type PolicyWriteQuery = { confirm?: 'reset' };

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
  rules: ApiPolicy;
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
  body: ApiPolicy | null;
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
