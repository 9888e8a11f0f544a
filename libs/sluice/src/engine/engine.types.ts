import type { Clock } from '../clock/clock.js';
import type { Policy } from '../policy/policy.types.js';
import type { SluiceStore } from '../store/store.types.js';
import type { Decision } from './decision.js';

// What the engine's operations take and answer (SluiceEngine's, and its parts').

/** What a SluiceEngine decides with: its store, key prefix, first policies and clock. */
export interface SluiceEngineOptions {
  /** Where counts live: a RedisStore, an EventualStore over one, or a MemoryStore. */
  store: SluiceStore;
  /** Start of every Redis key. Default 'sluice'. */
  prefix?: string;
  /** Policies known from the start; more can be set later through `policies`. */
  policies?: unknown[];
  /**
   * The time, in epoch microseconds like every Clock in Sluice: tells whether an override or a
   * candidate has expired. Default the system clock.
   */
  clock?: Clock;
}

/** How one call counts: its cost, the kind of identifier, the route it decides for. */
export interface ConsumeOptions {
  /** Units this request costs. Default: each policy's own cost. */
  cost?: number;
  /** What the identifier is (ip, user, header:x-api-key …). Default: the policies' `key`. */
  keyKind?: string;
  /** The handler deciding (`Controller.method`): labels the penalty events this call sets off. */
  route?: string;
  /**
   * The request's tier (a plan: `free`, `pro`), as the app resolved it: each policy that names it
   * decides at its rate, the others at their own. An operator's override assigning a tier wins.
   */
  tier?: string;
  /**
   * The identifier's own renewal day for calendar month policies (its billing day, 1–31), as the
   * app resolved it; an operator's override naming one wins (docs/guide.md, "Calendar quotas").
   */
  anchorDay?: number;
  /**
   * The request's client, which allow and deny list entries of an address or a User-Agent match.
   * The guard passes one object per request, shared by its calls, so an entry that matches several
   * of them is counted once; identifier entries need nothing more.
   */
  client?: { address?: string | undefined; userAgent?: string | undefined };
}

/**
 * Options of the operations that act on an identifier's key rather than decide: reset, block,
 * lift, forget.
 */
export interface KeyOptions {
  /** What the identifier is. Default: the policies' `key`. */
  keyKind?: string;
  /**
   * The identifier's stored key (`#h:` and a digest), as a penalty event's `key` gives it for an
   * identifier over 256 characters: it names the counters, and `identifier` only labels them
   * (docs/operations.md, "Identifiers too long to show").
   */
  key?: string;
}

/** A decision, and the policies whose counters its store call charged: what a refund gives back. */
export interface Charged {
  /** The decision on the request. */
  decision: Decision;
  /** Empty when nothing was charged: refused, settled without the store, or decided elsewhere. */
  charged: readonly Policy[];
  /**
   * The lease the charged concurrency policies hold a slot under, until `release` ends it
   * (docs/algorithms.md, "Concurrency"); absent when none was charged.
   */
  lease?: string;
}

/** A quota's current period for one identifier: what `grant` and `quota` answer. */
export interface Quota {
  /** The policy (a fixed-window, usually a calendar one). */
  policy: string;
  /** The identifier, as given. */
  identifier: string;
  /** Units counted in the period. */
  used: number;
  /** Units it may still take: limit + granted - used, at least 0. */
  remaining: number;
  /** The period's limit: the tier's when one applies, else the override's or the policy's. */
  limit: number;
  /** Credits granted for the period (negative: debited). */
  granted: number;
  /** When the period ends and its count and credits with it, epoch ms. */
  resetAt: number;
  /** The tier whose limit applies, or null. */
  tier: string | null;
}

/** What a grant or a quota read needs beyond the policy and identifier. */
export interface QuotaOptions extends KeyOptions {
  /** The identifier's tier, as the app resolves it; an override assigning one wins. */
  tier?: string;
  /** The identifier's own renewal day, as for consume. */
  anchorDay?: number;
}
