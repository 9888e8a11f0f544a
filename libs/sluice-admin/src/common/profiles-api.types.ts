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
  /** The window counted in, ms: the policy's period within 1 s and 1 day. */
  windowMs: number;
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
