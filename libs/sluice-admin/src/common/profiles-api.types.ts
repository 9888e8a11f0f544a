// The admin API's types for traffic profiles (docs/operations.md, "Choosing a limit").

/** GET /policies/:name/profile?range=&tier= */
export type ProfileQuery = {
  /** The hours read: `hour` (default), `day` or `week`, each up to now. */
  range?: 'hour' | 'day' | 'week';
  /** One tier's requests; `-` for those decided under no tier; absent: every request. */
  tier?: string;
};

/** One of a profile's busiest identifiers. */
export interface ProfileIdentifierView {
  /** What kind of identifier it is: `ip`, `user`, `header:<name>` or a tracker's name. */
  keyKind: string;
  /** As an operator reads it; a cut identifier's stored key in `key`. */
  identifier: string;
  /** A cut identifier's stored key, which names it whole; null for one shown whole. */
  key: string | null;
  /** The tier its requests were decided under, or null. */
  tier: string | null;
  /** The most requests it made in one window. */
  most: number;
  /** The limit in force for its tier now (the policy's without one). */
  limit: number;
}

/**
 * GET /policies/:name/profile: how many requests each identifier made per window of the
 * policy's period over the range (docs/algorithms.md, "Traffic profiles").
 */
export interface TrafficProfileView {
  /** The policy's name. */
  policy: string;
  /** The range read. */
  range: 'hour' | 'day' | 'week';
  /** The tier read; null: every request; '' those of no tier. */
  tier: string | null;
  /**
   * The window counted in, ms: the policy's period, 1 s at the least; for a calendar policy its
   * unit's usual length, the windows being its own periods.
   */
  windowMs: number;
  /** The calendar unit whose periods (in the policy's time zone) are the windows, or null. */
  calendar: 'day' | 'week' | 'month' | 'year' | null;
  /** The hours read: from the start of the first to the end of the current one, ISO 8601. */
  from: string;
  /** The end of the current hour, ISO 8601. */
  to: string;
  /** Windows counted with at least one identifier. */
  windows: number;
  /** Identifiers seen in a window, added over the windows (an estimate when sampled). */
  identifierWindows: number;
  /** Requests counted (an estimate when sampled). */
  requests: number;
  /** Requests one identifier made in one window at p50, p90, p99, p99.9; null: no window yet. */
  percentiles: { p50: number; p90: number; p99: number; p999: number } | null;
  /** The most one counted identifier made in one window. */
  max: number;
  /** Identifier-windows by requests made in one window (`from`–`to`), the fewest first. */
  histogram: Array<{ from: number; to: number; identifierWindows: number }>;
  /** The busiest counted identifiers, the most in one window first. */
  busiest: ProfileIdentifierView[];
  /** One identifier in `share` is counted: 1 unless windows held more than the bound. */
  share: number;
  /** A percentile at or above 32 may read up to this fraction above the true count. */
  bucketError: number;
  /** Requests counted after their window had been added up, left out. */
  late: number;
  /** The limit in force for the tier read (the policy's for every request or no tier). */
  limit: number;
  /** The policy's period, ms. */
  periodMs: number;
}

/** GET /policies/:name/recommendation?range=&tier=&percentile=&headroom= */
export type RecommendationQuery = ProfileQuery & {
  /** The percentile of identifier-windows to start from, in percent: 50 to 99.99. Default 99. */
  percentile?: number;
  /** Room added above it, in percent: 0 to 1000. Default 20. */
  headroom?: number;
};

/** What a limit would have refused over the profile's windows. */
export interface RefusalsView {
  /** Identifier-windows that made more requests than the limit. */
  identifierWindows: number;
  /** Their share of every identifier-window, 0 to 1. */
  identifierWindowShare: number;
  /** Requests beyond the limit in those windows. */
  requests: number;
  /** Their share of every request counted, 0 to 1. */
  requestShare: number;
}

/**
 * GET /policies/:name/recommendation: a limit read from the traffic profile for a percentile and
 * headroom, with what it, and the limit in force, would have refused over the range. A proposal:
 * nothing is applied (docs/operations.md, "Choosing a limit").
 */
export interface RecommendationView {
  /** The policy's name. */
  policy: string;
  /** The range read. */
  range: 'hour' | 'day' | 'week';
  /** The tier read; null: every request; '' those of no tier. */
  tier: string | null;
  /**
   * Where the requests per period were read: `profile`, whose windows are the policy's periods;
   * `record`, the replay record counted per period, for a period under a second.
   */
  source: 'profile' | 'record';
  /** The policy's algorithm. */
  algorithm: string;
  /** The policy's period, ms. */
  periodMs: number;
  /** The calendar unit whose periods the policy counts in, or null. */
  calendar: 'day' | 'week' | 'month' | 'year' | null;
  /** The percentile started from, in percent. */
  percentile: number;
  /** The room added above it, in percent. */
  headroom: number;
  /** Requests one identifier made in one window at that percentile. */
  base: number;
  /** The limit proposed: base with the headroom, rounded up. */
  limit: number;
  /** The limit in force for the tier read. */
  currentLimit: number;
  /** What the proposed limit would have refused. */
  refused: RefusalsView;
  /** What the limit in force would have refused, read the same way. */
  refusedNow: RefusalsView;
  /** The busiest identifiers the proposed limit would have refused. */
  identifiers: ProfileIdentifierView[];
  /**
   * True for fixed-window, whose windows are the profile's; the other algorithms refuse at
   * least this much (a sliding window or a burst also refuses within a window).
   */
  exact: boolean;
  /** Windows and identifier-windows the profile held over the range. */
  windows: number;
  /** Identifiers seen in a window, added over the windows. */
  identifierWindows: number;
  /** One identifier in `share` was counted. */
  share: number;
  /**
   * The recorded requests of the tier read replayed through the policy's own algorithm at the
   * limit proposed (its burst, its period, its calendar), from the start of the window holding
   * the range's start: exact on the sampled identifiers. Null without a record of the range, or
   * read over every tier of a tiered policy.
   */
  replayed: {
    /** The first request replayed, ISO 8601. */
    from: string;
    /** Requests decided. */
    decided: number;
    /** Refused at the limit proposed. */
    refused: number;
    /** Refused live. */
    liveRefused: number;
    /** Refused at the limit proposed and admitted live. */
    newlyRefused: number;
    /**
     * True when the record reaches back to the start of the policy's window holding the range's
     * start (its period's, for a calendar quota); false: earlier requests are not known.
     */
    complete: boolean;
  } | null;
}

/** A rule to replay: the policy's own fields that decide, each absent field the policy's. */
export interface ReplayRule {
  /** How requests are counted (not concurrency). */
  algorithm?:
    'fixed-window' | 'sliding-log' | 'sliding-window' | 'token-bucket' | 'leaky-bucket' | 'gcra';
  /** Units admitted per period. */
  limit?: number;
  /** The period, ms. */
  periodMs?: number;
  /** Bucket capacity; null: the limit. */
  burst?: number | null;
  /** sliding-window's sub-windows. */
  segments?: number | null;
  /** leaky-bucket's longest hold, ms; null: (burst − 1) intervals. */
  maxDelayMs?: number | null;
  /**
   * fixed-window only: count in these calendar periods (the time zone defaults to UTC); null:
   * in windows of `periodMs`. Absent: the policy's calendar while the rule keeps fixed-window and
   * sets no `periodMs`.
   */
  calendar?: {
    unit: 'day' | 'week' | 'month' | 'year';
    timeZone?: string;
    anchorDay?: number | null;
  } | null;
  /** Each tier's rate; absent: the policy's tiers. */
  tiers?: Record<string, { limit: number; burst?: number | null }>;
}

/** POST /policies/:name/replay */
export interface ReplayRequest {
  /** The rule to replay; absent: the policy as it is. */
  rule?: ReplayRule;
  /** How far back, in minutes: 1 to 1440. Default 60. */
  minutes?: number;
}

/** One identifier's requests in a replay. */
export interface ReplayIdentifierView {
  /** What kind of identifier it is. */
  keyKind: string;
  /** As an operator reads it; a cut identifier's stored key in `key`. */
  identifier: string;
  /** A cut identifier's stored key, or null. */
  key: string | null;
  /** Its requests the rule was asked about. */
  requests: number;
  /** Refused live. */
  liveRefused: number;
  /** Refused by the rule replayed. */
  refused: number;
}

/** Requests and refusals in one minute of a replay. */
export interface ReplayMinuteView {
  /** The minute's start, ISO 8601. */
  at: string;
  /** Requests the rule was asked about. */
  requests: number;
  /** Refused live. */
  liveRefused: number;
  /** Refused by the rule replayed. */
  refused: number;
}

/**
 * POST /policies/:name/replay: the policy's recorded requests replayed through a rule's twin,
 * beside what the live rule did (docs/operations.md, "Choosing a limit"). Nothing is applied.
 */
export interface ReplayView {
  /** The policy's name. */
  policy: string;
  /**
   * The rule replayed, every field filled in; `calendar` the periods it counted in (the policy's
   * while the rule keeps fixed-window and its period), or null.
   */
  rule: Required<Omit<ReplayRule, 'tiers' | 'calendar'>> & {
    calendar: {
      unit: 'day' | 'week' | 'month' | 'year';
      timeZone: string;
      anchorDay: number | null;
    } | null;
    tiers: ReplayRule['tiers'] | null;
  };
  /** The range replayed, ISO 8601. */
  from: string;
  /** The end of the range, ISO 8601. */
  to: string;
  /** The oldest request recorded, ISO 8601, or null: a range before it is not covered. */
  oldest: string | null;
  /**
   * Where the replay started reading, ISO 8601: the start of the rule's window that holds `from`
   * (a fixed window's, a calendar period's), else one period before it, so state carried into
   * the range is replayed too; only the range's requests are counted.
   */
  history: string;
  /**
   * True when the record reaches back to `history`. False: it begins later, and requests made
   * before its oldest (if any were made) are not known, so refusals may be undercounted.
   */
  complete: boolean;
  /** Requests recorded in the range. */
  records: number;
  /** Identifiers among them. */
  identifiers: number;
  /** Requests the rule was asked about (not those another policy refused). */
  decided: number;
  /** Refused live. */
  liveRefused: number;
  /** Refused by the rule replayed. */
  refused: number;
  /** Refused by the rule and admitted live. */
  newlyRefused: number;
  /** Admitted by the rule and refused live. */
  newlyAdmitted: number;
  /** The identifiers on which the two differ most, then the most refused. */
  byIdentifier: ReplayIdentifierView[];
  /** Minute by minute. */
  timeline: ReplayMinuteView[];
}
