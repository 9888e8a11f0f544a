import type { AdminRole } from './admin-role.js';
import type { InstanceList } from './identifiers-api.types.js';

// The admin API's types: sessions, live counters and the queries of the read routes.

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
