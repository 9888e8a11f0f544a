import type { CallTarget } from '../engine/call.target.js';
import type { ConsumeOptions } from '../engine/engine.types.js';
import type { Policy } from '../policy/policy.types.js';

/**
 * What a request is decided by, read before any identifier is: its route's policies that apply
 * to it, and where its ending can be watched (docs/architecture.md, "One request, hop by hop").
 */
export interface RequestMatch {
  /** The context's type: 'http', 'graphql', 'ws' (or another transport's). */
  readonly kind: string;
  /** The handler, `Controller.method`. */
  readonly route: string;
  /** The route's policies that apply to this request, resolved once. */
  readonly policies: readonly Policy[];
  /** The policy names the route's marks give (what the block gate learns). */
  readonly names: readonly string[];
  /** The tier `@ThrottleTier` gives the route, if any. */
  readonly routeTier: string | undefined;
  /** The adapter's request (the client for a WebSocket message). */
  readonly req: unknown;
  /** The adapter's response; undefined where there is none. */
  readonly res: unknown;
  /**
   * What identifies the invocation for its outcome: the HTTP request, a resolver call's `info`,
   * a WebSocket message's data object.
   */
  readonly invocation: object | undefined;
}

/**
 * The request's terms, the same for each of its calls: its route, tier, renewal day, cost and
 * client, as the app resolved them. One object per request, shared by its calls, so a list entry
 * that matches several of them is counted once.
 */
export type RequestTerms = Readonly<Omit<ConsumeOptions, 'keyKind'>>;

/**
 * One request, planned once (docs/architecture.md, "One request, hop by hop"): its match, one call
 * target per identifier it counts under (the policies counting it, the key kind, the key), and its
 * terms. Every later step reads it; none copies it or looks a policy up again.
 */
export interface RequestPlan extends RequestMatch {
  readonly calls: readonly CallTarget[];
  readonly terms: RequestTerms;
}
