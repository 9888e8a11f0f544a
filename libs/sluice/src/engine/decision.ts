import type { AlgorithmName } from '../algorithms/algorithm.types.js';
import { idiv } from '../algorithms/integer-math.js';
import type { ListEntry, ListName } from '../lists/list-entry.schema.js';
import type { Policy } from '../policy/policy.types.js';

/**
 * Why a policy decided as it did: 'ok' admitted; 'limit' over the rate; 'blocked' a penalty's or
 * an operator's block in Redis; 'cache-block' a block this instance had cached; 'denylist' an
 * override of limit 0 or a deny-list entry; 'shadow' a shadow policy's would-be refusal; 'store-error' Redis failed
 * and the policy's onStoreError refused.
 */
export type DecisionReason =
  'ok' | 'limit' | 'blocked' | 'cache-block' | 'denylist' | 'shadow' | 'store-error';

/** The override a policy applied to the identifier, as the policy states it. */
export interface AppliedOverride {
  /** The identifier it names, or with `prefix` what the identifiers start with. */
  identifier: string;
  /** True: it names every identifier that starts with `identifier`. */
  prefix: boolean;
  /** The kind of identifier it names. */
  keyKind: string;
  /** Its limit; null with `unlimited`. */
  limit: number | null;
  /** True: the identifier is not limited by the policy. */
  unlimited: boolean;
  /** The tier it assigns the identifier to, or null. */
  tier: string | null;
  /** The day of the month the identifier's calendar periods renew on, or null: the policy's. */
  anchorDay: number | null;
  /** Epoch ms, or null: never. */
  expiresAt: number | null;
}

/** One policy's part of a decision (docs/guide.md, decision). */
export interface PolicyDecision {
  /** Whether the policy admits the request (a shadow policy always does). */
  allowed: boolean;
  /** The policy's name. */
  policy: string;
  /** Its algorithm. */
  algorithm: AlgorithmName;
  /** The limit applied: the policy's, or its override's. */
  limit: number;
  /**
   * A quota's credits for the period in progress (negative: debited), on top of `limit` and
   * already in `remaining`; absent when there are none (docs/algorithms.md, "Credits").
   */
  granted?: number;
  /** Units left after this request. */
  remaining: number;
  /** ms until the count is whole again (RateLimit-Reset). */
  resetMs: number;
  /** ms until a refused request may succeed; 0 when admitted (Retry-After). */
  retryAfterMs: number;
  /** ms the request is held before it proceeds: leaky-bucket's shaping, else 0. */
  delayMs: number;
  /** Why it decided so. */
  reason: DecisionReason;
  /** `started`: this request's refusal is the one that set the block off. */
  blocked?: { untilMs: number; offence: number; started?: boolean };
  /** The override applied to the identifier, if any. */
  override?: AppliedOverride;
  /** The tier whose rate decided, when one applied. */
  tier?: string;
  /** The allow or deny list entry that decided the policy without the store, when one did. */
  listEntry?: { id: string; list: ListName };
}

/**
 * The decision on one request: the deciding policy's figures (the rejecting one with the longest
 * wait, else the one with the least left), and every policy's own in `policies`.
 */
export interface Decision extends PolicyDecision {
  /** Each decided policy's own figures, in the order the policies were named. */
  policies: PolicyDecision[];
  /**
   * What the shadow candidates of the decided policies would have answered, each named as its
   * policy; they never change `allowed`. Absent when none of the policies has one in force.
   */
  candidates?: PolicyDecision[];
  /**
   * The lease an admitted request holds its concurrency policies' slots under: give it to
   * `release` when the request ends (the guard does). Absent without such a policy.
   */
  lease?: string;
}

export function summarize(policies: PolicyDecision[], admitted: boolean): Decision {
  const first = policies[0];
  if (first === undefined) throw new Error('a decision needs at least one policy');
  let deciding = first;
  for (let index = 1; index < policies.length; index++) {
    const candidate = policies[index] as PolicyDecision;
    if (admitted) {
      const shadowed = candidate.reason === 'shadow' && deciding.reason !== 'shadow';
      if (
        shadowed ||
        (candidate.reason === deciding.reason && candidate.remaining < deciding.remaining)
      ) {
        deciding = candidate;
      }
    } else if (
      !candidate.allowed &&
      (deciding.allowed || candidate.retryAfterMs > deciding.retryAfterMs)
    ) {
      deciding = candidate;
    }
  }
  let delayMs = 0;
  if (admitted) for (const policy of policies) delayMs = Math.max(delayMs, policy.delayMs);
  // Built field by field (an object spread is several times slower on this hot path), in the
  // order a spread of `deciding` would give.
  const decision = {
    allowed: admitted,
    policy: deciding.policy,
    algorithm: deciding.algorithm,
    limit: deciding.limit,
    remaining: deciding.remaining,
    resetMs: deciding.resetMs,
    retryAfterMs: deciding.retryAfterMs,
    delayMs,
    reason: deciding.reason,
  } as Decision;
  if (deciding.granted !== undefined) decision.granted = deciding.granted;
  if (deciding.blocked !== undefined) decision.blocked = deciding.blocked;
  if (deciding.override !== undefined) decision.override = deciding.override;
  if (deciding.tier !== undefined) decision.tier = deciding.tier;
  if (deciding.listEntry !== undefined) decision.listEntry = deciding.listEntry;
  decision.policies = policies;
  return decision;
}

/**
 * A decision made without the store: a policy that is off, or an override that settles it (a
 * denylist entry under a shadow policy only reports what it would have done). nowMs: epoch ms.
 */
export function settledDecision(
  policy: Policy,
  reason: 'ok' | 'denylist' | 'shadow',
  override: AppliedOverride | undefined,
  nowMs: number,
): PolicyDecision {
  const allowed = reason !== 'denylist';
  const open = reason === 'ok';
  const retryAfterMs = allowed
    ? 0
    : override?.expiresAt != null
      ? Math.max(0, override.expiresAt - nowMs)
      : policy.periodMs;
  // Built field by field, not with a spread: a spread in a literal costs a runtime call per
  // decision, which the deny-list path pays on every refused request (docs/benchmarks.md).
  const decision: PolicyDecision = {
    allowed,
    policy: policy.name,
    algorithm: policy.algorithm,
    limit: open ? policy.limit : 0,
    remaining: open ? policy.limit : 0,
    resetMs: 0,
    retryAfterMs,
    delayMs: 0,
    reason,
  };
  if (override !== undefined) decision.override = override;
  return decision;
}

/**
 * A policy decided by a list entry, without the store: a deny entry refuses (a shadow policy
 * only says it would have) until the entry expires, else for the policy's period; an allow entry
 * admits with the policy's limit untouched.
 */
export function listedDecision(policy: Policy, entry: ListEntry, nowMs: number): PolicyDecision {
  const reason = entry.list === 'allow' ? 'ok' : policy.mode === 'shadow' ? 'shadow' : 'denylist';
  const decision = settledDecision(policy, reason, undefined, nowMs);
  if (!decision.allowed && entry.expiresAt !== null) {
    decision.retryAfterMs = Math.max(0, Date.parse(entry.expiresAt) - nowMs);
  }
  decision.listEntry = { id: entry.id, list: entry.list };
  return decision;
}

/** A refusal made in this process without the store: a cached block, or the store failing. */
export function refusalWithoutStore(
  policy: Policy,
  reason: 'cache-block' | 'store-error',
  waitMs: number,
): PolicyDecision {
  return {
    allowed: false,
    policy: policy.name,
    algorithm: policy.algorithm,
    limit: policy.limit,
    remaining: 0,
    resetMs: waitMs,
    retryAfterMs: waitMs,
    delayMs: 0,
    reason,
  };
}

/**
 * How long a shaped request is held: its wait in µs to the nearest ms. A timer cannot wait less
 * than 1 ms, and rounding up would hold a request whose turn is a few µs away a whole millisecond.
 */
export function delayInMs(delayUs: number): number {
  return idiv(delayUs + 500, 1000);
}
