import type {
  AppliedOverride,
  IdentifierTier,
  InstanceHeartbeat,
  PolicyDecision,
  Quota,
} from '@sluice/nest/internals';

// The admin API's types: instances, identifiers, what a request would get, counters and quotas.

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

/**
 * GET /inspect/:policy/:identifier: what a request would get now, nothing charged, at the tier
 * `tiers.ofIdentifier` names; `tierLookup` says what it named, or why it named none (null: the
 * policy has no tiers and renews on no day of the identifier's).
 */
export type InspectResult = ApiPolicyDecision & {
  /** Each policy's own figures. */
  policies: ApiPolicyDecision[];
  /** What the policies' shadow candidates would answer; absent when none is in force. */
  candidates?: ApiPolicyDecision[];
  tierLookup: IdentifierTier | null;
};

/** A policy's part of a decision as the API writes it: its times in ISO 8601, UTC. */
export type ApiPolicyDecision = Omit<PolicyDecision, 'blocked' | 'override'> & {
  /** The identifier's block: when it ends, its offence, and whether this call started it. */
  blocked?: { until: string; offence: number; started?: boolean };
  /** The override applied, its expiry in ISO 8601 (null: never). */
  override?: Omit<AppliedOverride, 'expiresAt'> & { expiresAt: string | null };
};

/** DELETE /counters/:policy/:identifier?forgetOffences=&key= */
export interface CounterResetResult {
  /** Always true: the counters are gone. */
  reset: true;
}

/**
 * GET /quotas/:policy/:identifier, and what POST …/grant answers: the quota's current period for
 * the identifier (`limit` the tier's when one applies).
 */
export type QuotaState = Omit<Quota, 'resetAt'> & {
  /** When the period ends, and its count and credits with it: ISO 8601, UTC. */
  resetAt: string;
};

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
  /**
   * A key the caller chooses for this grant (a UUID; 8 to 100 letters, digits, `.`, `_`, `:` or
   * `-`): sent again with a retry after an answer that never came, the grant is made once.
   */
  key?: string;
}

/** What a grant answers: the quota after it. */
export interface QuotaGrantAnswer extends QuotaState {
  /** True when a grant with this key was already made: this one granted nothing more. */
  replayed: boolean;
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

/** GET and DELETE /plans/:identifier?keyKind= */
export type PlanQuery = {
  /** The kind of identifier; default each policy's own `key`. */
  keyKind?: string;
};

/**
 * PUT /plans/:identifier: moves an identifier to `tier` under every policy that has it, in one
 * version (one override per policy, assigning the tier), audited once as `plan.assign`.
 */
export interface PlanAssignmentRequest {
  /** The tier, which at least one policy must have. */
  tier: string;
  /** The kind of identifier; default each policy's own `key`. */
  keyKind?: string;
  /** When the plan ends (ISO 8601 with its zone); null or absent: never. */
  expiresAt?: string | null;
  /** Why, as the audit records it. */
  note?: string | null;
}

/** An identifier's plan: its tier under each tiered policy, and who set it, when and why. */
export interface PlanView {
  /** The identifier. */
  identifier: string;
  /** The kind asked for, or null: each policy's own. */
  keyKind: string | null;
  /** The tier its overrides assign, when every assignment names the same one; else null. */
  tier: string | null;
  /** When the assignment ends (ISO 8601), or null. */
  expiresAt: string | null;
  /** Each tiered policy, and the tier an override assigns the identifier there (null: none). */
  policies: Array<{ policy: string; tier: string | null; expiresAt: string | null }>;
  /** The last `plan.assign` or `plan.remove` of the identifier, or null. */
  lastChange: { action: string; actor: string; at: string; note: string | null } | null;
}
