import { systemClock, type Clock } from '../clock/clock.js';
import {
  unrefTimeout,
  type EventualCounts,
  type EventualStoreOptions,
  type Scheduler,
} from './eventual.options.js';
import { quiet } from './decide.js';
import { hashOf, Sightings, slotOfHash } from './eventual.sightings.js';
import { learn, outcomeOf, reasonOf, refill, ViewTable, type View } from './eventual.view.js';
import type {
  OutcomeReason,
  PolicyOutcome,
  PolicySpec,
  SluiceStore,
  StoreCall,
  StoreResult,
} from './store.types.js';

export type { EventualCounts, EventualStoreOptions, Scheduler } from './eventual.options.js';

/**
 * `consistency: 'eventual'` (docs/algorithms.md): a consume whose policies are all eventual is
 * decided from this instance's view of each policy's state, and the units it admits are sent to
 * Redis every syncMs in one `sync` call per identifier, whose answer is the view from then on.
 * No view yet, or one too old, and a refusal that counts toward a penalty go to Redis as in exact
 * mode; blocks come back with every sync. Every other call passes through.
 */
export class EventualStore implements SluiceStore {
  private readonly views: ViewTable;
  private readonly sightings = new Sightings();
  /** Identifier key → the views with something to send. */
  private dirty = new Map<string, Map<string, View>>();
  private readonly clock: Clock;
  private readonly schedule: Scheduler;
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
    const maxViews = options.maxViews ?? 100_000;
    if (!Number.isSafeInteger(maxViews) || maxViews < 1) {
      throw new RangeError(`EventualStore: maxViews must be a positive integer, got ${maxViews}`);
    }
    this.views = new ViewTable(maxViews);
  }

  /** Decides an eventual policy's consume from this instance's view; everything else in Redis. */
  run(call: StoreCall): Promise<StoreResult> {
    const result = this.start(call);
    return result instanceof Promise ? result : Promise.resolve(result);
  }

  /** As run, but a local decision is the result itself, at once. */
  start(call: StoreCall): StoreResult | Promise<StoreResult> {
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

  /**
   * Not async: a local decision is the result itself, and Redis's answer is learnt on its way
   * back. An identifier decides here only when its previous request came within an interval:
   * one seen less often costs a sync call per request, as much as the exact call, so Redis
   * decides it as in exact mode, and until it comes back sooner nothing is kept of it but when it
   * came (docs/algorithms.md, "Eventual consistency"). Each view is looked up once, for the local
   * decision and the exact call alike.
   */
  private consume(call: StoreCall): StoreResult | Promise<StoreResult> {
    const now = this.clock();
    const interval = shortestInterval(call.specs);
    const hash = hashOf(call.key);
    const slot = slotOfHash(hash);
    const hot = now - this.sightings.see(hash, now) <= interval;
    if (!hot && !this.views.mayHave(slot)) return this.exactAlone(call);
    const found = call.specs.map((spec) => this.views.find(call.key, spec));
    if (!hot && found.every((view) => view === undefined)) return this.exactAlone(call);
    const local = hot ? this.decideHere(call, found, now) : undefined;
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
    const views = call.specs.map((spec, index) => {
      const view = found[index] ?? this.views.viewOf(call.key, spec);
      view.spec = spec;
      return view;
    });
    const generations = views.map((view) => view.generation);
    return this.inner.run(call).then((result) => {
      const answered = this.clock();
      views.forEach((view, index) => {
        if (view.generation !== generations[index]) return;
        learn(view, result.outcomes[index] as PolicyOutcome, answered);
      });
      return result;
    });
  }

  /** Redis decides, as in exact mode: the identifier has no view to learn the answer. */
  private exactAlone(call: StoreCall): Promise<StoreResult> {
    this.counts.exact++;
    return this.inner.run(call);
  }

  /** The decision from this instance's views, or undefined when Redis must make it. */
  private decideHere(
    call: StoreCall,
    found: ReadonlyArray<View | undefined>,
    now: number,
  ): StoreResult | undefined {
    const views: View[] = [];
    for (let index = 0; index < call.specs.length; index++) {
      const spec = call.specs[index] as PolicySpec;
      const view = found[index];
      if (view === undefined || !view.known || now >= view.staleAt) return undefined;
      if (now >= view.freshAt) refill(view);
      view.spec = spec;
      views.push(view);
    }
    const reasons: OutcomeReason[] = [];
    let admitted = true;
    for (const view of views) {
      const reason = reasonOf(view, now);
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
      return outcomeOf(view, reason, now);
    });
    return { admitted, outcomes };
  }

  /**
   * Gives back units not sent yet here, or dropped with a failed sync (Redis may never have
   * counted them); anything Redis counted is Redis's to give back.
   */
  private refund(call: StoreCall): Promise<StoreResult> {
    const views = call.specs.map((spec) => this.views.find(call.key, spec));
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
    return Promise.resolve({ admitted: true, outcomes: call.specs.map(() => quiet()) });
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
        learn(view, result.outcomes[index] as PolicyOutcome, now);
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

  /** After a reset the units admitted before it are wiped, as Redis wipes what it counted. */
  private forget(call: StoreCall): void {
    const dirty = this.dirty.get(call.key);
    for (const spec of call.specs) {
      const view = this.views.find(call.key, spec);
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

/** µs: the shortest sync interval of a call's policies, all of them eventual. */
function shortestInterval(specs: readonly PolicySpec[]): number {
  let shortest = Infinity;
  for (const spec of specs) shortest = Math.min(shortest, (spec.syncMs ?? 0) * 1000);
  return shortest;
}

/** Whether every policy of a call is eventual and none is a candidate (candidates are exact). */
function isEventual(call: StoreCall): boolean {
  if (call.specs.length === 0) return false;
  for (const spec of call.specs) {
    if (spec.syncMs === undefined || spec.mode === 'candidate') return false;
  }
  return true;
}
