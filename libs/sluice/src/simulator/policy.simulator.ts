import type { AlgorithmName } from '../algorithms/algorithm.types.js';
import { traitsOf } from '../algorithms/algorithm.traits.js';
import { delayInMs } from '../engine/decision.js';
import type { PenaltyOptions, PolicyMode } from '../policy/policy.types.js';
import { runOperation, type StateAccess } from '../store/operations.js';
import type { PenaltyRule, PolicySpec } from '../store/store.types.js';

const DAY_MS = 24 * 3_600_000;
const WEEK_MS = 7 * DAY_MS;
/** More than this many requests is no simulation anyone reads; it also bounds the work. */
export const MAX_SIMULATED_REQUESTS = 10_000;
const CHART_BUCKETS = 40;

/** The fields of a policy that decide how it treats traffic, as the editor holds them. */
export interface SimulatedPolicy {
  /** How requests are counted. */
  algorithm: AlgorithmName;
  /** Units admitted per period. */
  limit: number;
  /** The period, ms. */
  periodMs: number;
  /** Bucket capacity; null or absent: `limit`. */
  burst?: number | null;
  /** Sub-windows of sliding-window. */
  segments?: number | null;
  /** leaky-bucket's longest hold, ms. */
  maxDelayMs?: number | null;
  /** Units one request uses. Default 1. */
  cost?: number;
  /** The penalty that blocks a caller who keeps hitting the limit. */
  penalty?: PenaltyOptions | null;
  /** 'shadow' lets refused requests through, counting them. */
  mode?: PolicyMode;
}

/**
 * steady: `ratePerSecond` evenly spaced for `durationMs`; burst: `count` at once; boundary: the
 * seeds' case, `limit` requests at 0.8 of a window and `limit` more at 1.2 windows, which a fixed
 * window admits in full although they fall within one window's length of each other.
 */
export type RequestPattern =
  | { kind: 'steady'; ratePerSecond: number; durationMs: number }
  | { kind: 'burst'; count: number }
  | { kind: 'boundary' };

/** One simulated request and what the policy did with it. */
export interface SimulatedRequest {
  /** Since the first request, ms (fractions kept). */
  atMs: number;
  /** Whether the policy admitted it. */
  admitted: boolean;
  /** Refused while a penalty's block was in force (rather than by the rate). */
  blocked: boolean;
  /** Shadow mode: would have been refused, let through. */
  shadowRejected: boolean;
  /** leaky-bucket: how long the guard holds it before it leaves, ms (the wait to the nearest ms). */
  delayMs: number;
}

/** Requests admitted and refused in one slice of time, for a chart. */
export interface SimulationBucket {
  /** Start of the bucket since the first request, ms. */
  fromMs: number;
  /** Admitted in the bucket. */
  admitted: number;
  /** Refused in the bucket. */
  rejected: number;
}

/** What a policy does with a pattern of requests from one caller. */
export interface SimulationResult {
  /** Each request, in time order. */
  requests: SimulatedRequest[];
  /** Requests admitted. */
  admitted: number;
  /** Requests refused. */
  rejected: number;
  /** Requests admitted after a wait (leaky-bucket). */
  delayed: number;
  /** Requests a shadow policy would have refused. */
  shadowRejected: number;
  /** Requests per bucket of `bucketMs`, for a chart. */
  buckets: SimulationBucket[];
  /** The buckets' width, ms. */
  bucketMs: number;
}

/** Request times, µs after the start; the start is on a window boundary of the policy. */
export function requestTimes(pattern: RequestPattern, policy: SimulatedPolicy): number[] {
  const period = policy.periodMs * 1000;
  if (pattern.kind === 'burst') return new Array<number>(whole(pattern.count)).fill(0);
  if (pattern.kind === 'boundary') {
    const limit = whole(policy.limit);
    const half = Math.min(limit, MAX_SIMULATED_REQUESTS / 2);
    return [
      ...new Array<number>(half).fill(Math.round(period * 0.8)),
      ...new Array<number>(half).fill(Math.round(period * 1.2)),
    ];
  }
  const count = whole((pattern.ratePerSecond * pattern.durationMs) / 1000);
  const spacing = 1_000_000 / pattern.ratePerSecond;
  return Array.from({ length: count }, (_, index) => Math.round(index * spacing));
}

function whole(count: number): number {
  if (!Number.isFinite(count) || count < 0) return 0;
  return Math.min(Math.floor(count), MAX_SIMULATED_REQUESTS);
}

/** What the store is given for this policy, with the defaults validation would fill in. */
export function specOf(policy: SimulatedPolicy): PolicySpec {
  const penalty = policy.penalty ?? null;
  const rule: PenaltyRule | null =
    penalty === null
      ? null
      : {
          afterViolations: penalty.afterViolations,
          blockMs: penalty.blockMs,
          escalation: penalty.escalation ?? 1,
          maxBlockMs: penalty.maxBlockMs ?? Math.max(DAY_MS, penalty.blockMs),
          forgetAfterMs: penalty.forgetAfterMs ?? WEEK_MS,
        };
  const traits = traitsOf(policy.algorithm);
  return {
    name: 'simulated',
    algorithm: policy.algorithm,
    limit: policy.limit,
    periodMs: policy.periodMs,
    burst: traits.burst ? (policy.burst ?? null) : null,
    segments: traits.segments ? (policy.segments ?? 10) : null,
    maxDelayMs: traits.shapes ? (policy.maxDelayMs ?? null) : null,
    cost: policy.cost ?? 1,
    penalty: rule,
    mode: policy.mode === 'shadow' ? 'shadow' : 'enforce',
  };
}

/** Keyed state whose entries expire on the simulated clock, as Redis's would. */
export function simulatedState(clock: { now: number }): StateAccess {
  const slots = new Map<string, { value: unknown; expiresAt: number }>();
  return {
    get: <T>(key: string) => {
      const slot = slots.get(key);
      return slot === undefined || slot.expiresAt <= clock.now ? undefined : (slot.value as T);
    },
    set: (key, value, ttl) => {
      if (ttl <= 0) slots.delete(key);
      else slots.set(key, { value, expiresAt: clock.now + ttl });
    },
    delete: (key) => slots.delete(key),
  };
}

/**
 * Runs `pattern` through the library's own TypeScript twin of the Lua scripts (the same code the
 * in-memory store runs), one client, on a simulated clock: nothing is sent anywhere. Penalties
 * are applied as the store applies them; mode 'off' admits everything.
 */
export function simulatePolicy(policy: SimulatedPolicy, pattern: RequestPattern): SimulationResult {
  const spec = specOf(policy);
  const period = Math.max(1, Math.floor(policy.periodMs)) * 1000;
  // A window boundary well after zero, so fixed windows line up with the pattern's start.
  const start = period * 1000;
  const clock = { now: start };
  const state = simulatedState(clock);
  const requests = requestTimes(pattern, policy).map((offset): SimulatedRequest => {
    clock.now = start + offset;
    const atMs = offset / 1000;
    if (policy.mode === 'off') {
      return { atMs, admitted: true, blocked: false, shadowRejected: false, delayMs: 0 };
    }
    const result = runOperation(state, { op: 'consume', key: 'sim', specs: [spec] }, clock.now);
    const outcome = result.outcomes[0];
    return {
      atMs,
      admitted: result.admitted,
      blocked: outcome?.reason === 'blocked',
      shadowRejected: outcome?.reason === 'shadow',
      delayMs: result.admitted ? delayInMs(outcome?.delay ?? 0) : 0,
    };
  });
  return summarize(requests);
}

function summarize(requests: SimulatedRequest[]): SimulationResult {
  const lastMs = requests.at(-1)?.atMs ?? 0;
  const bucketMs = Math.max(1, Math.ceil((lastMs + 1) / CHART_BUCKETS));
  const buckets: SimulationBucket[] = [];
  for (let fromMs = 0; fromMs <= lastMs; fromMs += bucketMs) {
    buckets.push({ fromMs, admitted: 0, rejected: 0 });
  }
  let admitted = 0;
  let delayed = 0;
  let shadowRejected = 0;
  for (const request of requests) {
    const bucket = buckets[Math.floor(request.atMs / bucketMs)];
    if (request.admitted) admitted++;
    if (request.delayMs > 0) delayed++;
    if (request.shadowRejected) shadowRejected++;
    if (bucket !== undefined) {
      if (request.admitted) bucket.admitted++;
      else bucket.rejected++;
    }
  }
  return {
    requests,
    admitted,
    rejected: requests.length - admitted,
    delayed,
    shadowRejected,
    buckets,
    bucketMs,
  };
}
