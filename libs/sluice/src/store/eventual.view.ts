import { isWindowAlgorithm } from '../algorithms/algorithm.types.js';
import { rateParams } from '../algorithms/rate-params.js';
import { capacity } from '../policy/policy.schema.js';
import { SIGHTING_SLOTS, slotOf } from './eventual.sightings.js';
import type { OutcomeReason, PolicyOutcome, PolicySpec } from './store.types.js';

// What an EventualStore knows of each policy's state for each identifier: its views, bounded,
// and how a view learns from Redis's answers and refills between them (docs/algorithms.md,
// eventual consistency).

/**
 * A view is used for at most this many intervals after Redis last answered for it. An instance
 * that keeps seeing an identifier syncs it every interval, so only an identifier it sees rarely
 * reaches this age (docs/algorithms.md, eventual consistency).
 */
const VIEW_LIFE_SYNCS = 20;
const EVICTION_SCAN = 64;

export /** What this instance knows of one policy's state for one identifier. */
interface View {
  /** `<identifier key> <policy> <algorithm>`: one Redis state. */
  readonly id: string;
  /** The slot of the identifier's key (slotOf). */
  readonly slot: number;
  spec: PolicySpec;
  /** Units this instance may still admit on its own. */
  remaining: number;
  /**
   * µs, this clock: when Redis's state is fresh again (a window's end, a full bucket), had no
   * one charged it since; from then on the view holds the full capacity until Redis answers.
   */
  freshAt: number;
  /** µs, this clock: after this the view is too old to use. */
  staleAt: number;
  /** µs; 0: not blocked. */
  blockedUntil: number;
  offence: number;
  /** A quota's credits for the period Redis last answered for; they end with it. */
  granted: number;
  /** Whether Redis has answered for it since it was last forgotten. */
  known: boolean;
  /** Units admitted here and not sent yet. */
  unsent: number;
  /** Units sent in a sync whose answer has not come back. */
  sending: number;
  /** Units of failed syncs: Redis may never have counted them, so a refund of them stays here. */
  dropped: number;
  /** Moves on at every reset, block and unblock: an answer to a call sent before is not used. */
  generation: number;
}

export const viewKey = (key: string, spec: PolicySpec) => `${key} ${spec.name} ${spec.algorithm}`;

/** The views of one EventualStore, at most `maxViews`; past it the oldest idle ones go. */
export class ViewTable {
  private readonly views = new Map<string, View>();
  /** Views per key slot (slotOf): none there, and a key has none, without a map lookup. */
  private perSlot: Uint32Array | undefined;

  constructor(private readonly maxViews: number) {}

  /** Whether a key of `slot` may have a view; false: it has none. */
  mayHave(slot: number): boolean {
    return this.perSlot !== undefined && (this.perSlot[slot] as number) > 0;
  }

  /** The view of `spec` under `key`, if this instance has one. */
  find(key: string, spec: PolicySpec): View | undefined {
    return this.views.get(viewKey(key, spec));
  }

  viewOf(key: string, spec: PolicySpec): View {
    const id = viewKey(key, spec);
    let view = this.views.get(id);
    if (view === undefined) {
      if (this.views.size >= this.maxViews) this.evict();
      view = {
        id,
        slot: slotOf(key),
        spec,
        remaining: 0,
        freshAt: 0,
        staleAt: 0,
        blockedUntil: 0,
        offence: 0,
        granted: 0,
        known: false,
        unsent: 0,
        sending: 0,
        dropped: 0,
        generation: 0,
      };
      this.views.set(id, view);
      const perSlot = (this.perSlot ??= new Uint32Array(SIGHTING_SLOTS));
      perSlot[view.slot] = (perSlot[view.slot] as number) + 1;
    }
    view.spec = spec;
    return view;
  }

  /**
   * Drops the oldest views with nothing in flight (a dropped view costs one exact call); one with
   * units in flight goes to the back instead, so a busy front never stops the eviction.
   */
  private evict(): void {
    let scanned = 0;
    for (const [id, view] of this.views) {
      if (++scanned > EVICTION_SCAN) return;
      this.views.delete(id);
      if (view.unsent === 0 && view.sending === 0) {
        const perSlot = this.perSlot as Uint32Array;
        perSlot[view.slot] = (perSlot[view.slot] as number) - 1;
        if (this.views.size < this.maxViews) return;
      } else {
        this.views.set(id, view);
      }
    }
  }
}

/** Redis's answer becomes the view, less what was admitted here since and is not in it yet. */
export function learn(view: View, outcome: PolicyOutcome, now: number): void {
  view.remaining = Math.max(0, outcome.remaining - view.unsent - view.sending);
  view.freshAt = now + outcome.reset;
  view.staleAt = now + VIEW_LIFE_SYNCS * (view.spec.syncMs ?? 0) * 1000;
  view.blockedUntil = outcome.blockedUntil;
  view.offence = outcome.offence;
  view.granted = outcome.granted ?? 0;
  view.known = true;
}

/**
 * The state is fresh by now unless another instance charged it, which the next sync tells: the
 * capacity less what was admitted here since the last answer. A bucket refills before it is
 * full, so until then a view can only be short of room (docs/algorithms.md).
 */
export function refill(view: View): void {
  const { algorithm, limit, burst } = view.spec;
  view.remaining = Math.max(0, capacity(algorithm, limit, burst) - view.unsent - view.sending);
  view.blockedUntil = 0;
  // A new period starts without the last one's credits (docs/algorithms.md, "Credits").
  view.granted = 0;
  view.freshAt = Infinity;
}

/**
 * How long until a refused request could pass, from the view alone: a window's end, or the time
 * a bucket takes to refill what the request lacks, whichever comes first.
 */
export function retryEstimate(view: View, reset: number): number {
  if (isWindowAlgorithm(view.spec.algorithm)) return reset;
  const { interval } = rateParams(view.spec);
  return Math.min(reset, interval * Math.max(1, view.spec.cost - view.remaining));
}

/** What a view says of a request now: room for its cost, a block, or none (shadow: let through). */
export function reasonOf(view: View, now: number): OutcomeReason {
  const reason: OutcomeReason =
    view.blockedUntil > now ? 'blocked' : view.remaining >= view.spec.cost ? 'ok' : 'limit';
  return reason !== 'ok' && view.spec.mode === 'shadow' ? 'shadow' : reason;
}

/** A decision made from a view, as Redis would have answered it. */
export function outcomeOf(view: View, reason: OutcomeReason, now: number): PolicyOutcome {
  const blocked = view.blockedUntil > now;
  const reset = blocked
    ? view.blockedUntil - now
    : view.freshAt === Infinity
      ? 0
      : Math.max(0, view.freshAt - now);
  let retry = 0;
  if (blocked) retry = reset;
  else if (reason !== 'ok') retry = retryEstimate(view, reset);
  return {
    allowed: reason === 'ok' || reason === 'shadow',
    reason,
    remaining: view.remaining,
    reset,
    retry,
    delay: 0,
    blockedUntil: blocked ? view.blockedUntil : 0,
    offence: view.offence,
    blockStarted: false,
    granted: view.granted,
  };
}
