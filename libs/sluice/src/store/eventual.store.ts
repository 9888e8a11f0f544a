import { isWindowAlgorithm } from '../algorithms/algorithm.types.js';
import { rateParams } from '../algorithms/rate-params.js';
import { systemClock, type Clock } from '../clock/clock.js';
import { capacity } from '../policy/policy.schema.js';
import type {
  OutcomeReason,
  PolicyOutcome,
  PolicySpec,
  SluiceStore,
  StoreCall,
  StoreResult,
} from './store.types.js';

/** Runs `task` after `ms`; returns how to cancel it. */
export type Scheduler = (task: () => void, ms: number) => () => void;

/** The clock, the scheduler and the bound of an EventualStore. */
export interface EventualStoreOptions {
  /** µs. Default: the system clock. */
  clock?: Clock;
  /** Default: an unreferenced setTimeout, so a pending sync never keeps a process alive. */
  schedule?: Scheduler;
  /** Most views kept (one per policy and identifier); past it the oldest idle ones go. Default 100 000. */
  maxViews?: number;
}

/** How often each kind of call was made: what a test or a benchmark reads. */
export interface EventualCounts {
  /** Consume calls decided here, from a view. */
  local: number;
  /** Consume calls sent to Redis: no usable view, or a refusal Redis must count. */
  exact: number;
  /** Sync calls sent (one per identifier with hits or refusals in an interval). */
  syncs: number;
  /** Sync calls that failed: their units were dropped, never sent twice. */
  failedSyncs: number;
}

/**
 * A view is used for at most this many intervals after Redis last answered for it. An instance
 * that keeps seeing an identifier syncs it every interval, so only an identifier it sees rarely
 * reaches this age (docs/algorithms.md, eventual consistency).
 */
const VIEW_LIFE_SYNCS = 20;
const EVICTION_SCAN = 64;

/** What this instance knows of one policy's state for one identifier. */
interface View {
  /** `<identifier key> <policy> <algorithm>`: one Redis state. */
  readonly id: string;
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

const viewKey = (key: string, spec: PolicySpec) => `${key} ${spec.name} ${spec.algorithm}`;

const REFUNDED: PolicyOutcome = {
  allowed: true,
  reason: 'ok',
  remaining: 0,
  reset: 0,
  retry: 0,
  delay: 0,
  blockedUntil: 0,
  offence: 0,
  blockStarted: false,
};

/**
 * `consistency: 'eventual'` (docs/algorithms.md): a consume whose policies are all eventual is
 * decided from this instance's view of each policy's state, and the units it admits are sent to
 * Redis every syncMs in one `sync` call per identifier, whose answer is the view from then on.
 * No view yet, or one too old, and a refusal that counts toward a penalty go to Redis as in exact
 * mode; blocks come back with every sync. Every other call passes through.
 */
export class EventualStore implements SluiceStore {
  private readonly views = new Map<string, View>();
  /** Identifier key → the views with something to send. */
  private dirty = new Map<string, Map<string, View>>();
  private readonly clock: Clock;
  private readonly schedule: Scheduler;
  private readonly maxViews: number;
  private cancelTimer: (() => void) | undefined;
  private dueAt = Infinity;
  private closed = false;
  /** How often each kind of call was made so far. */
  readonly counts: EventualCounts = { local: 0, exact: 0, syncs: 0, failedSyncs: 0 };

  constructor(
    private readonly inner: SluiceStore,
    options: EventualStoreOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.schedule = options.schedule ?? unrefTimeout;
    this.maxViews = options.maxViews ?? 100_000;
    if (!Number.isSafeInteger(this.maxViews) || this.maxViews < 1) {
      throw new RangeError(
        `EventualStore: maxViews must be a positive integer, got ${this.maxViews}`,
      );
    }
  }

  /** Decides an eventual policy's consume from this instance's view; everything else in Redis. */
  run(call: StoreCall): Promise<StoreResult> {
    // Closed, nothing would be sent again: every call is Redis's.
    if (this.closed || !isEventual(call)) return this.inner.run(call);
    switch (call.op) {
      case 'consume':
        return this.consume(call);
      case 'refund':
        return this.refund(call);
      case 'reset':
      case 'block':
      case 'unblock':
      case 'forget':
      case 'grant':
      case 'settle':
        // Whatever this instance knew no longer holds: the next request asks Redis.
        this.forget(call);
        return this.inner.run(call);
      default:
        return this.inner.run(call);
    }
  }

  /** Sends every unsent unit now; resolves once Redis has answered. */
  flush(): Promise<void> {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.dueAt = Infinity;
    const due = this.dirty;
    if (due.size === 0) return Promise.resolve();
    this.dirty = new Map();
    // Sent in one turn: a single server's calls share one FCALL (store/turn.batch.ts).
    const sends: Array<Promise<void>> = [];
    for (const [key, views] of due) sends.push(this.sync(key, [...views.values()]));
    return Promise.all(sends).then(() => undefined);
  }

  /** The last sync, at shutdown: nothing admitted here is left unsent. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  private async consume(call: StoreCall): Promise<StoreResult> {
    const local = this.decideHere(call);
    if (local !== undefined) {
      this.counts.local++;
      return local;
    }
    this.counts.exact++;
    // What was admitted here goes first, in the same turn (so in the same FCALL on a single
    // server, and on the same connection anyway): Redis decides on every unit this instance knows.
    const unsent = this.dirty.get(call.key);
    if (unsent !== undefined) {
      this.dirty.delete(call.key);
      void this.sync(call.key, [...unsent.values()]);
    }
    const views = call.specs.map((spec) => this.viewOf(call.key, spec));
    const generations = views.map((view) => view.generation);
    const result = await this.inner.run(call);
    const now = this.clock();
    views.forEach((view, index) => {
      if (view.generation !== generations[index]) return;
      this.learn(view, result.outcomes[index] as PolicyOutcome, now);
    });
    return result;
  }

  /** The decision from this instance's views, or undefined when Redis must make it. */
  private decideHere(call: StoreCall): StoreResult | undefined {
    const now = this.clock();
    const views: View[] = [];
    for (const spec of call.specs) {
      const view = this.views.get(viewKey(call.key, spec));
      if (view === undefined || !view.known || now >= view.staleAt) return undefined;
      if (now >= view.freshAt) refill(view);
      view.spec = spec;
      views.push(view);
    }
    const reasons: OutcomeReason[] = [];
    let admitted = true;
    for (const view of views) {
      let reason: OutcomeReason =
        view.blockedUntil > now ? 'blocked' : view.remaining >= view.spec.cost ? 'ok' : 'limit';
      if (reason !== 'ok' && view.spec.mode === 'shadow') reason = 'shadow';
      if (reason === 'limit' || reason === 'blocked') admitted = false;
      reasons.push(reason);
    }
    // A violation is counted, and a block started, by Redis alone: blocks stay global.
    if (
      !admitted &&
      views.some((view, i) => reasons[i] === 'limit' && view.spec.penalty !== null)
    ) {
      return undefined;
    }
    const outcomes = views.map((view, index) => {
      const reason = reasons[index] as OutcomeReason;
      if (admitted && reason === 'ok') {
        view.remaining -= view.spec.cost;
        view.unsent += view.spec.cost;
      }
      // A refused identifier is synced too: its next answer may say it has room again.
      this.markDirty(call.key, view, now);
      return this.outcome(view, reason, now);
    });
    return { admitted, outcomes };
  }

  private outcome(view: View, reason: OutcomeReason, now: number): PolicyOutcome {
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
    };
  }

  /**
   * Gives back units not sent yet here, or dropped with a failed sync (Redis may never have
   * counted them); anything Redis counted is Redis's to give back.
   */
  private refund(call: StoreCall): Promise<StoreResult> {
    const views = call.specs.map((spec) => this.views.get(viewKey(call.key, spec)));
    const here = views.every((view, index) => {
      const cost = (call.specs[index] as PolicySpec).cost;
      return view !== undefined && (view.unsent >= cost || view.dropped >= cost);
    });
    if (!here) return this.inner.run(call);
    views.forEach((view, index) => {
      const cost = (call.specs[index] as PolicySpec).cost;
      const local = view as View;
      if (local.unsent >= cost) {
        local.unsent -= cost;
        local.remaining += cost;
      } else {
        local.dropped -= cost;
      }
    });
    return Promise.resolve({ admitted: true, outcomes: call.specs.map(() => REFUNDED) });
  }

  private async sync(key: string, views: View[]): Promise<void> {
    const specs = views.map((view) => ({ ...view.spec, cost: view.unsent }));
    const generations = views.map((view) => view.generation);
    for (const view of views) {
      view.sending += view.unsent;
      view.unsent = 0;
    }
    this.counts.syncs++;
    try {
      const result = await this.inner.run({ op: 'sync', key, specs });
      const now = this.clock();
      views.forEach((view, index) => {
        view.sending -= (specs[index] as PolicySpec).cost;
        if (view.generation !== generations[index]) return;
        this.learn(view, result.outcomes[index] as PolicyOutcome, now);
      });
    } catch {
      // The call may or may not have counted; sending it again could count it twice. Its units
      // are dropped and the views forgotten, so the next request asks Redis, and meets the
      // policy's onStoreError if Redis is still away.
      this.counts.failedSyncs++;
      views.forEach((view, index) => {
        const units = (specs[index] as PolicySpec).cost;
        view.sending -= units;
        view.dropped += units;
        view.known = false;
      });
    }
  }

  /** Redis's answer becomes the view, less what was admitted here since and is not in it yet. */
  private learn(view: View, outcome: PolicyOutcome, now: number): void {
    view.remaining = Math.max(0, outcome.remaining - view.unsent - view.sending);
    view.freshAt = now + outcome.reset;
    view.staleAt = now + VIEW_LIFE_SYNCS * (view.spec.syncMs ?? 0) * 1000;
    view.blockedUntil = outcome.blockedUntil;
    view.offence = outcome.offence;
    view.known = true;
  }

  private viewOf(key: string, spec: PolicySpec): View {
    const id = viewKey(key, spec);
    let view = this.views.get(id);
    if (view === undefined) {
      if (this.views.size >= this.maxViews) this.evict();
      view = {
        id,
        spec,
        remaining: 0,
        freshAt: 0,
        staleAt: 0,
        blockedUntil: 0,
        offence: 0,
        known: false,
        unsent: 0,
        sending: 0,
        dropped: 0,
        generation: 0,
      };
      this.views.set(id, view);
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
        if (this.views.size < this.maxViews) return;
      } else {
        this.views.set(id, view);
      }
    }
  }

  /** After a reset the units admitted before it are wiped, as Redis wipes what it counted. */
  private forget(call: StoreCall): void {
    const dirty = this.dirty.get(call.key);
    for (const spec of call.specs) {
      const view = this.views.get(viewKey(call.key, spec));
      if (view === undefined) continue;
      view.known = false;
      view.generation++;
      if (call.op === 'reset') {
        view.unsent = 0;
        dirty?.delete(view.id);
      }
    }
    if (dirty?.size === 0) this.dirty.delete(call.key);
  }

  private markDirty(key: string, view: View, now: number): void {
    let views = this.dirty.get(key);
    if (views === undefined) {
      views = new Map();
      this.dirty.set(key, views);
    }
    views.set(view.id, view);
    const due = now + (view.spec.syncMs ?? 0) * 1000;
    if (due >= this.dueAt || this.closed) return;
    this.cancelTimer?.();
    this.dueAt = due;
    this.cancelTimer = this.schedule(
      () => {
        this.cancelTimer = undefined;
        void this.flush();
      },
      Math.ceil((due - now) / 1000),
    );
  }
}

/** Whether every policy of a call is eventual and none is a candidate (candidates are exact). */
function isEventual(call: StoreCall): boolean {
  if (call.specs.length === 0) return false;
  for (const spec of call.specs) {
    if (spec.syncMs === undefined || spec.mode === 'candidate') return false;
  }
  return true;
}

/**
 * The state is fresh by now unless another instance charged it, which the next sync tells: the
 * capacity less what was admitted here since the last answer. A bucket refills before it is
 * full, so until then a view can only be short of room (docs/algorithms.md).
 */
function refill(view: View): void {
  const { algorithm, limit, burst } = view.spec;
  view.remaining = Math.max(0, capacity(algorithm, limit, burst) - view.unsent - view.sending);
  view.blockedUntil = 0;
  view.freshAt = Infinity;
}

/**
 * How long until a refused request could pass, from the view alone: a window's end, or the time
 * a bucket takes to refill what the request lacks, whichever comes first.
 */
function retryEstimate(view: View, reset: number): number {
  if (isWindowAlgorithm(view.spec.algorithm)) return reset;
  const { interval } = rateParams(view.spec);
  return Math.min(reset, interval * Math.max(1, view.spec.cost - view.remaining));
}

const unrefTimeout: Scheduler = (task, ms) => {
  const timer = setTimeout(task, ms);
  timer.unref();
  return () => clearTimeout(timer);
};
