import type { Calendar, CalendarUnit } from '../clock/calendar.js';
import type { AlgorithmName } from '../algorithms/algorithm.types.js';

/** 'enforce' refuses over the limit; 'shadow' decides and counts, never refuses; 'off' is not decided. */
export type PolicyMode = 'enforce' | 'shadow' | 'off';
/** What a policy decides when Redis fails: admit, refuse, or decide in the instance's memory. */
export type StoreErrorMode = 'allow' | 'deny' | 'local';
/** Where a policy is decided: in Redis on every request, or by each instance, synced to Redis. */
export type Consistency = 'exact' | 'eventual';

/** Blocks an identifier that keeps hitting the limit (docs/guide.md, penalties). */
export interface PenaltyOptions {
  /** Refusals within one window that set off a block, 1 or more. */
  afterViolations: number;
  /** How long the first block lasts, ms. */
  blockMs: number;
  /** Each further offence multiplies the block by this. Default 1. */
  escalation?: number;
  /** Default: one day, or blockMs when longer. */
  maxBlockMs?: number;
  /** Offences are forgotten this long after the last block ends. Default seven days. */
  forgetAfterMs?: number;
}

/** Another limit for one identifier of the policy's key kind (docs/guide.md, overrides). */
export interface PolicyOverride {
  /** The identifier it applies to, exactly as the policy's key reads it. */
  identifier: string;
  /**
   * 0 denies the identifier outright. Null or absent: no limit of its own, as a policy read back
   * states an unlimited override.
   */
  limit?: number | null;
  /** True: the identifier is never limited by this policy. */
  unlimited?: boolean;
  /** ISO 8601 time or epoch ms; null or absent: never. */
  expiresAt?: string | number | null;
  /**
   * True: it applies to every identifier that starts with `identifier` (`partner-` for
   * `partner-1`, `partner-2` …); an exact override of the same identifier wins, then the longest
   * prefix. Default false.
   */
  prefix?: boolean;
  /**
   * Assigns the identifier to one of the policy's tiers, over what the app resolves. Null or
   * absent: none, as a policy read back states it.
   */
  tier?: string | null;
  /**
   * What kind of identifier it names (`ip`, `user`, `header:<name>`, a tracker): it applies only
   * to requests counted under that kind. Default the policy's `key`; `ip` for the address a
   * request without a user (or header) is counted by.
   */
  keyKind?: string;
  /**
   * A calendar month policy only: the day of the month this identifier's periods renew on (its
   * billing day), 1–31, over the policy's `anchorDay`. Null or absent: the policy's.
   */
  anchorDay?: number | null;
}

/**
 * A tier's rate: what it overrides of its policy's (docs/guide.md, tiers). The window, key and
 * algorithm stay the policy's, so moving between tiers keeps the count.
 */
export interface TierRate {
  /** Units admitted per period. */
  limit: number;
  /** Bucket capacity of token-bucket, leaky-bucket and gcra; null or absent: the tier's limit. */
  burst?: number | null;
  /** leaky-bucket only: the longest a request may be held, ms; null: (burst − 1) intervals. */
  maxDelayMs?: number | null;
}

/** A calendar period as written: the zone defaults to UTC, the anchor to the 1st. */
export interface CalendarInput {
  /** The period counted: `day`, `week` (ISO, from Monday), `month` or `year`. */
  unit: CalendarUnit;
  /** An IANA time zone such as `Europe/Paris`. Default `UTC`. */
  timeZone?: string;
  /** `month` only: the day of the month periods start on, 1–31. Default 1. */
  anchorDay?: number | null;
}

/**
 * fixed-window only: the request's real cost is settled once its response is known, the policy's
 * `cost` reserved at admission (docs/guide.md, "Charges settled after the response").
 */
export interface UsageInput {
  /** The response header saying the units used, e.g. `x-usage-tokens`; null: reported only. */
  header?: string | null;
  /** The most one request is charged: what a settlement may take past the limit, less `cost`. */
  maxCost: number;
  /** A response of 400 or more, or an aborted one: `refund` the reservation (default) or `keep` it. */
  onFailure?: 'refund' | 'keep';
}

/** A policy as code or an operator writes it (docs/guide.md, policies). */
export interface PolicyInput {
  /** 1–64 of letters, digits, `_ . -`, starting with a letter or digit. */
  name: string;
  /** How requests are counted; docs/algorithms.md compares them. */
  algorithm: AlgorithmName;
  /** Units admitted per period. */
  limit: number;
  /** The period, ms: 1 ms to 365 days. Required unless `calendar` sets the period. */
  periodMs?: number;
  /**
   * fixed-window only: windows that are calendar periods (a day, an ISO week, a month, a year)
   * in a time zone, instead of `periodMs` (docs/algorithms.md, "Calendar periods").
   */
  calendar?: CalendarInput | null;
  /** Bucket capacity of token-bucket, leaky-bucket and gcra; null: `limit`. */
  burst?: number | null;
  /** Sub-windows of sliding-window (default 10); null for the other algorithms. */
  segments?: number | null;
  /** leaky-bucket only: the longest a request may be held, ms; null: (burst − 1) intervals. */
  maxDelayMs?: number | null;
  /** Units one request uses. Default 1. With `usage`, what is reserved at admission. */
  cost?: number;
  /** fixed-window only: settle the real cost after the response; null: none. */
  usage?: UsageInput | null;
  /** Who is counted: 'ip', 'user', 'header:<name>' or a named tracker. Default 'user'. */
  key?: string;
  /** Applies the policy only to requests whose User-Agent matches this regex (case-insensitive). */
  match?: { userAgent?: string } | null;
  /** 'failures': the charge is given back when the response succeeds. Default 'all'. */
  count?: 'all' | 'failures';
  /** Blocks identifiers that keep hitting the limit; null: none. */
  penalty?: PenaltyOptions | null;
  /** Default 'enforce'. */
  mode?: PolicyMode;
  /** Default 'allow'. */
  onStoreError?: StoreErrorMode;
  /**
   * 'exact' (default): every request is decided in Redis. 'eventual': each instance decides from
   * its own view and sends its hits every syncMs (docs/algorithms.md, eventual consistency).
   */
  consistency?: Consistency;
  /** How often an instance sends the hits of an eventual policy, ms. Default 50. */
  syncMs?: number;
  /** Other limits for single identifiers, at most 10 000. */
  overrides?: PolicyOverride[];
  /**
   * Named rates (a plan's: `free`, `pro`), at most 32. A request's tier comes from an operator's
   * override (`tier`), else the module's tier resolver or the call's `tier`; none, or one the
   * policy does not name, is decided at the policy's own rate.
   */
  tiers?: Record<string, TierRate> | null;
  /** Free text, at most 1000 characters. */
  description?: string | null;
  /** The stored revision's number; the admin sets it on every write. */
  version?: number;
  /** Who last wrote it: the app's code defaults or an operator through the admin. */
  source?: 'code' | 'admin';
  /** ISO 8601 time of the last write, or null. */
  updatedAt?: string | null;
  /** The actor of the last write, or null. */
  updatedBy?: string | null;
  /** A proposed revision, decided beside this one without ever refusing a request. */
  candidate?: PolicyCandidateInput | null;
}

/** The rules of a proposed revision: a policy as PUT /policies takes it, without its name. */
export type CandidateRulesInput = Omit<
  PolicyInput,
  'name' | 'version' | 'source' | 'updatedAt' | 'updatedBy' | 'candidate'
>;

/** A shadow candidate as the policy snapshot carries it (docs/architecture.md). */
export interface PolicyCandidateInput {
  /** The revision's rules. */
  rules: CandidateRulesInput;
  /** Epoch ms: from then on it is no longer decided. */
  expiresAt: number;
  /** The actor who proposed it, or null. */
  proposedBy: string | null;
  /** ISO 8601. */
  proposedAt: string;
  /** The policy's version it was proposed against. */
  baseVersion: number;
  /**
   * The share of identifiers, 1 to 100 percent, the candidate is decided for (100 when absent);
   * docs/architecture.md, "Shadow candidates", says why a sample.
   */
  samplePercent?: number;
}

/** A validated candidate: its rules as a policy of the same name, with defaults filled in. */
export interface PolicyCandidate {
  /** The rules as a policy of the same name, in 'candidate' mode when decided. */
  policy: Policy;
  /** Epoch ms: from then on it is no longer decided. */
  expiresAt: number;
  /** The actor who proposed it, or null. */
  proposedBy: string | null;
  /** ISO 8601. */
  proposedAt: string;
  /** The policy's version it was proposed against. */
  baseVersion: number;
  /** The share of identifiers, 1 to 100 percent, it is decided for. */
  samplePercent: number;
}

/** A validated policy with every default filled in. */
export interface Policy {
  /** As {@link PolicyInput.name}. */
  name: string;
  /** As {@link PolicyInput.algorithm}. */
  algorithm: AlgorithmName;
  /** Units admitted per period. */
  limit: number;
  /** The period, ms; for a calendar policy, its unit's longest (a 25-hour day, a 366-day year). */
  periodMs: number;
  /** The calendar periods of a fixed-window, or null: windows of `periodMs`. */
  calendar: Calendar | null;
  /** Bucket capacity, or null: `limit` (or not a bucket). */
  burst: number | null;
  /** Sub-windows of sliding-window; null for the other algorithms. */
  segments: number | null;
  /** leaky-bucket's longest hold, ms; null: (burst − 1) intervals, or not a leaky bucket. */
  maxDelayMs: number | null;
  /** Units one request uses; with `usage`, what is reserved at admission. */
  cost: number;
  /** How the real cost is settled after the response, or null: `cost` is the charge. */
  usage: Required<UsageInput> | null;
  /** Who is counted: 'ip', 'user', 'header:<name>' or a named tracker. */
  key: string;
  /** The User-Agent regex the policy applies to, or null: every request. */
  match: { userAgent: string } | null;
  /** 'failures': the charge is given back when the response succeeds. */
  count: 'all' | 'failures';
  /** The penalty with its defaults filled in, or null. */
  penalty: Required<PenaltyOptions> | null;
  /** Whether it refuses, only counts, or is not decided. */
  mode: PolicyMode;
  /** What it decides when Redis fails. */
  onStoreError: StoreErrorMode;
  /** Where it is decided. */
  consistency: Consistency;
  /** How often an instance sends an eventual policy's hits, ms. */
  syncMs: number;
  /** Other limits for single identifiers, expiry as epoch ms. */
  overrides: Array<{
    /** The identifier it applies to, or with `prefix` what the identifiers start with. */
    identifier: string;
    /** True: it applies to every identifier that starts with `identifier`. */
    prefix: boolean;
    /** The kind of identifier it names; it applies only to requests counted under it. */
    keyKind: string;
    /** Its limit; null with `unlimited`. 0 denies it. */
    limit: number | null;
    /** True: never limited by this policy. */
    unlimited: boolean;
    /** The tier it assigns the identifier to, or null. */
    tier: string | null;
    /** A calendar month's renewal day for this identifier, or null: the policy's. */
    anchorDay: number | null;
    /** epoch ms, or null: never */
    expiresAt: number | null;
  }>;
  /** The tiers with their defaults filled in, or null when it has none. */
  tiers: Record<string, Required<TierRate>> | null;
  /** Free text, or null. */
  description: string | null;
  /** The stored revision's number (0 for a code default not yet stored). */
  version: number;
  /** Who last wrote it: the app's code defaults or an operator through the admin. */
  source: 'code' | 'admin';
  /** ISO 8601 time of the last write, or null. */
  updatedAt: string | null;
  /** The actor of the last write, or null. */
  updatedBy: string | null;
  /** The proposed revision decided beside it, or null; never set on a candidate's own policy. */
  candidate: PolicyCandidate | null;
}
