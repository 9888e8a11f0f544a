import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock/clock.js';
import { toPolicySpec } from '../engine/policy-spec.js';
import { parsePolicy } from '../policy/policy.schema.js';
import type { PolicyInput } from '../policy/policy.types.js';
import { EventualStore, type Scheduler } from './eventual.store.js';
import { MemoryStore } from './memory.store.js';
import type { PolicySpec, SluiceStore, StoreCall, StoreResult } from './store.types.js';

const KEY = 'sluice:{user:ann}';
const MS = 1000;

/** The shared store (what Redis is in production), counting the calls that reach it by op. */
class SharedStore implements SluiceStore {
  readonly inner: MemoryStore;
  readonly calls: StoreCall[] = [];
  failing = false;
  /** While set, calls run at once but their replies wait here, as on a slow network. */
  held: Array<() => void> | undefined;

  constructor(clock: ManualClock) {
    this.inner = new MemoryStore({ clock: clock.now });
  }

  run(call: StoreCall): Promise<StoreResult> {
    this.calls.push(call);
    if (this.failing) return Promise.reject(new Error('connection reset'));
    const result = this.inner.run(call);
    const held = this.held;
    if (held === undefined) return result;
    return new Promise((resolve) => held.push(() => resolve(result)));
  }

  async release(): Promise<void> {
    const held = this.held ?? [];
    this.held = undefined;
    for (const reply of held) reply();
    await settle();
  }

  count(op: StoreCall['op']): number {
    return this.calls.filter((call) => call.op === op).length;
  }
}

/** Tasks run only when the test says time has passed. */
class ManualScheduler {
  private tasks: Array<{ at: number; task: () => void }> = [];
  private elapsed = 0;

  readonly schedule: Scheduler = (task, ms) => {
    const entry = { at: this.elapsed + ms, task };
    this.tasks.push(entry);
    return () => {
      this.tasks = this.tasks.filter((each) => each !== entry);
    };
  };

  /** Moves the clock by ms and runs what came due, then lets the store's replies settle. */
  async advance(clock: ManualClock, ms: number): Promise<void> {
    this.elapsed += ms;
    clock.advance(ms * MS);
    const due = this.tasks.filter((each) => each.at <= this.elapsed);
    this.tasks = this.tasks.filter((each) => each.at > this.elapsed);
    for (const each of due) each.task();
    await settle();
  }
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

function spec(input: Partial<PolicyInput> = {}): PolicySpec {
  const policy = parsePolicy({
    name: 'reply',
    algorithm: 'fixed-window',
    limit: 10,
    periodMs: 60_000,
    consistency: 'eventual',
    syncMs: 50,
    ...input,
  });
  return toPolicySpec(policy, policy.limit, policy.cost);
}

function setup() {
  const clock = new ManualClock();
  const scheduler = new ManualScheduler();
  const shared = new SharedStore(clock);
  const instance = () =>
    new EventualStore(shared, { clock: clock.now, schedule: scheduler.schedule });
  return { clock, scheduler, shared, instance };
}

const consume = (store: SluiceStore, specs: PolicySpec[], key = KEY) =>
  store.run({ op: 'consume', key, specs });

async function admittedOf(store: SluiceStore, specs: PolicySpec[], count: number) {
  let admitted = 0;
  for (let i = 0; i < count; i++) if ((await consume(store, specs)).admitted) admitted++;
  return admitted;
}

/** What the shared store holds for the policy: the units left in its window. */
async function sharedRemaining(shared: SharedStore, policy: PolicySpec): Promise<number> {
  const result = await shared.inner.run({ op: 'peek', key: KEY, specs: [policy] });
  return result.outcomes[0]!.remaining;
}

describe('EventualStore: consistency eventual', () => {
  it('asks the store for an identifier’s first two requests, then decides here', async () => {
    const { shared, instance } = setup();
    const store = instance();
    const policy = spec();
    expect(await admittedOf(store, [policy], 12)).toBe(10);
    // The first is only seen; the second, back within the interval, teaches the view.
    expect(shared.count('consume')).toBe(2);
    expect(store.counts).toMatchObject({ exact: 2, local: 10 });
  });

  it('answers a local decision through start at once, and a decision of the store as a promise', async () => {
    const { shared, instance } = setup();
    const store = instance();
    const policy = spec({ limit: 3 });
    const call: StoreCall = { op: 'consume', key: KEY, specs: [policy] };
    // The first two go to the store (seen, then learnt): promises.
    for (let i = 0; i < 2; i++) {
      const reply = store.start(call);
      expect(reply).toBeInstanceOf(Promise);
      expect((await reply).admitted).toBe(true);
    }
    // Decided here: the result itself, the same as run would give, and no store call.
    const local = store.start(call);
    expect(local).not.toBeInstanceOf(Promise);
    expect(local).toMatchObject({ admitted: true, outcomes: [{ remaining: 0, reason: 'ok' }] });
    const refused = store.start(call);
    expect(refused).toMatchObject({ admitted: false, outcomes: [{ reason: 'limit' }] });
    expect(shared.count('consume')).toBe(2);
    expect(store.counts).toMatchObject({ exact: 2, local: 2 });
    // run answers the same local decisions, as a promise.
    expect(await store.run(call)).toMatchObject({ admitted: false });
    expect(store.counts.local).toBe(3);
  });

  it('sends what it admitted in one sync per identifier once syncMs has passed', async () => {
    const { clock, scheduler, shared, instance } = setup();
    const store = instance();
    const policy = spec();
    await admittedOf(store, [policy], 4);
    expect(await sharedRemaining(shared, policy)).toBe(8);
    await scheduler.advance(clock, 49);
    expect(shared.count('sync')).toBe(0);
    await scheduler.advance(clock, 1);
    expect(shared.count('sync')).toBe(1);
    expect(shared.calls.at(-1)!.specs[0]!.cost).toBe(2);
    expect(await sharedRemaining(shared, policy)).toBe(6);
  });

  it('learns the other instances’ hits from its sync: three instances admit the limit plus at most one interval each', async () => {
    const { clock, scheduler, instance } = setup();
    const stores = [instance(), instance(), instance()];
    const policy = spec({ limit: 60, periodMs: 60_000 });
    let admitted = 0;
    // Each instance gets a request every 10 ms: 3 × 100 per second against 60 a minute.
    for (let tick = 0; tick < 300; tick++) {
      for (const store of stores) if ((await consume(store, [policy])).admitted) admitted++;
      await scheduler.advance(clock, 10);
    }
    // Bound (docs/algorithms.md): instances × what one instance admits in an interval, beyond
    // the limit; here 3 × 5 requests per 50 ms.
    expect(admitted).toBeGreaterThanOrEqual(60);
    expect(admitted).toBeLessThanOrEqual(60 + 3 * 5);
    // Redis decided each instance's first two requests only; every other was decided here.
    expect(stores.map((store) => store.counts.exact)).toEqual([2, 2, 2]);
  });

  it('never admits more than the limit when one instance alone takes the traffic', async () => {
    const { clock, scheduler, instance } = setup();
    const store = instance();
    const policy = spec({ algorithm: 'token-bucket', limit: 20, periodMs: 1_000, burst: 20 });
    let admitted = 0;
    for (let tick = 0; tick < 500; tick++) {
      if ((await consume(store, [policy])).admitted) admitted++;
      await scheduler.advance(clock, 2);
    }
    // One second: a full bucket of 20 and 20 refilled; the view is refreshed every sync.
    expect(admitted).toBeLessThanOrEqual(40);
    expect(admitted).toBeGreaterThanOrEqual(36);
  });

  it('counts what it admitted while a sync was on its way against the answer', async () => {
    const { clock, scheduler, shared, instance } = setup();
    const store = instance();
    const policy = spec();
    expect(await admittedOf(store, [policy], 4)).toBe(4);
    shared.held = [];
    await scheduler.advance(clock, 50);
    expect(shared.count('sync')).toBe(1);
    expect(await admittedOf(store, [policy], 4)).toBe(4);
    // Redis answers 6 left after the sync; 4 of those were admitted here meanwhile.
    await shared.release();
    expect(await admittedOf(store, [policy], 5)).toBe(2);
  });

  it('keeps its count of units in flight when one sync fails while another is on its way', async () => {
    const { clock, scheduler, shared, instance } = setup();
    const store = instance();
    const policy = spec();
    await admittedOf(store, [policy], 4);
    shared.held = [];
    await scheduler.advance(clock, 50);
    await admittedOf(store, [policy], 2);
    shared.failing = true;
    await scheduler.advance(clock, 50);
    shared.failing = false;
    await shared.release();
    // Redis counted 4 (the failed sync's 2 were dropped): 6 are left, not more.
    expect(await sharedRemaining(shared, policy)).toBe(6);
    expect(await admittedOf(store, [policy], 10)).toBe(6);
  });

  it('wipes the units admitted before a reset, as Redis wipes what it counted', async () => {
    const { clock, scheduler, shared, instance } = setup();
    const store = instance();
    const policy = spec();
    await admittedOf(store, [policy], 5);
    await store.run({ op: 'reset', key: KEY, specs: [policy] });
    await scheduler.advance(clock, 50);
    expect(await sharedRemaining(shared, policy)).toBe(10);
  });

  it('does not take an answer sent before an unblock for the state after it', async () => {
    const { clock, scheduler, shared, instance } = setup();
    const store = instance();
    const policy = spec();
    await consume(store, [policy]);
    await store.run({ op: 'block', key: KEY, specs: [policy], durationMs: 600_000 });
    expect((await consume(store, [policy])).outcomes[0]!.reason).toBe('blocked');
    expect((await consume(store, [policy])).outcomes[0]!.reason).toBe('blocked');
    shared.held = [];
    await scheduler.advance(clock, 50);
    const unblocked = store.run({ op: 'unblock', key: KEY, specs: [policy] });
    await shared.release();
    await unblocked;
    expect((await consume(store, [policy])).admitted).toBe(true);
  });

  it('says when to retry: the window’s end for a window, what the bucket lacks for a bucket', async () => {
    const { clock, instance } = setup();
    const window = spec();
    const windowStore = instance();
    await admittedOf(windowStore, [window], 10);
    const refused = await consume(windowStore, [window]);
    expect(refused.admitted).toBe(false);
    const windowEnd = 60_000 * MS - (clock.now() % (60_000 * MS));
    expect(refused.outcomes[0]).toMatchObject({ reason: 'limit', remaining: 0 });
    expect(refused.outcomes[0]!.retry).toBe(windowEnd);

    const bucket = spec({ name: 'bucket', algorithm: 'gcra', limit: 10, periodMs: 1_000 });
    const bucketStore = instance();
    await admittedOf(bucketStore, [bucket], 10);
    const empty = await consume(bucketStore, [bucket]);
    expect(empty.outcomes[0]).toMatchObject({ reason: 'limit', retry: 100 * MS });
  });

  it('lets Redis count a refusal under a penalty, and the block reaches the other instance with its next sync', async () => {
    const { clock, scheduler, shared, instance } = setup();
    const [first, second] = [instance(), instance()];
    const policy = spec({
      limit: 5,
      penalty: { afterViolations: 1, blockMs: 600_000 },
    });
    // Each instance's first two requests go to Redis; from then on each decides here.
    expect(await admittedOf(first, [policy], 2)).toBe(2);
    expect(await admittedOf(second, [policy], 3)).toBe(3);
    // The first's view lacks the other's three units (one not sent yet): it admits three more,
    // three over the limit, what the other took in this interval (the bound).
    expect(await admittedOf(first, [policy], 3)).toBe(3);
    // The view says no room; Redis gets this instance's unsent units first, then refuses, counts
    // the violation and starts the block.
    const refused = await consume(first, [policy]);
    expect(refused.outcomes[0]).toMatchObject({ reason: 'limit', blockStarted: true });
    expect(shared.count('consume')).toBe(5);
    await scheduler.advance(clock, 50);
    const blocked = await consume(second, [policy]);
    expect(blocked.outcomes[0]!.reason).toBe('blocked');
    expect(blocked.outcomes[0]!.blockedUntil).toBeGreaterThan(clock.now());
    expect(shared.count('consume')).toBe(5);
  });

  it('refuses over the limit but lets a shadow policy’s request through', async () => {
    const { instance } = setup();
    const store = instance();
    const policy = spec({ mode: 'shadow', limit: 2 });
    await admittedOf(store, [policy], 2);
    const over = await consume(store, [policy]);
    expect(over.admitted).toBe(true);
    expect(over.outcomes[0]).toMatchObject({ allowed: true, reason: 'shadow' });
  });

  it('charges every policy of a request or none, and takes a window’s end for a fresh window', async () => {
    const { clock, scheduler, shared, instance } = setup();
    const store = instance();
    const short = spec({ name: 'short', limit: 3, periodMs: 1_000 });
    const long = spec({ name: 'long', limit: 100, periodMs: 60_000 });
    expect(await admittedOf(store, [short, long], 5)).toBe(3);
    await scheduler.advance(clock, 50);
    const held = shared.calls.find((call) => call.op === 'sync')!;
    expect(held.specs.map((each) => each.cost)).toEqual([1, 1]);
    // Kept hot, a request an interval, each refused by short here, until short's window ends:
    // its view then holds the whole limit again, without asking Redis.
    for (let at = 50; at < 1_000; at += 50) {
      expect(await admittedOf(store, [short, long], 1)).toBe(0);
      await scheduler.advance(clock, 50);
    }
    expect(await admittedOf(store, [short, long], 4)).toBe(3);
    expect(shared.count('consume')).toBe(2);
    await scheduler.advance(clock, 50);
    expect(await sharedRemaining(shared, long)).toBe(94);
  });

  it('keeps only a sighting of an identifier seen once an interval or less, and decides here once it comes back sooner', async () => {
    const { clock, scheduler, shared, instance } = setup();
    const store = instance();
    const policy = spec({ limit: 20 });
    // Seen once an interval or less: one exact call per request, as in exact mode, nothing synced.
    for (let round = 0; round < 5; round++) {
      await scheduler.advance(clock, 51);
      await admittedOf(store, [policy], 1);
    }
    expect([shared.count('consume'), shared.count('sync'), store.counts.local]).toEqual([5, 0, 0]);
    // Back within the interval: Redis decides once more and its answer teaches the view; the
    // next requests are decided here.
    await scheduler.advance(clock, 50);
    await admittedOf(store, [policy], 3);
    expect([shared.count('consume'), store.counts.local]).toEqual([6, 2]);
    await scheduler.advance(clock, 50);
    expect(shared.count('sync')).toBe(1);
    // Seen 50 ms ago: here.
    await admittedOf(store, [policy], 1);
    expect([shared.count('consume'), store.counts.local]).toEqual([6, 3]);
    await scheduler.advance(clock, 51);
    // 51 ms: Redis decides, as in exact mode, and nothing is left to sync for it.
    await admittedOf(store, [policy], 1);
    expect(shared.count('consume')).toBe(7);
    await scheduler.advance(clock, 50);
    expect(shared.count('sync')).toBe(2);
    // With a view, an identifier seen rarely still costs one exact call per request, no sync.
    for (let round = 0; round < 5; round++) {
      await scheduler.advance(clock, 60);
      await admittedOf(store, [policy], 1);
    }
    expect([shared.count('consume'), shared.count('sync')]).toEqual([12, 2]);
    expect(await sharedRemaining(shared, policy)).toBe(20 - 15);
  });

  it('drops the units of a failed sync rather than send them twice, and the next request asks Redis', async () => {
    const { clock, scheduler, shared, instance } = setup();
    const store = instance();
    const policy = spec();
    await admittedOf(store, [policy], 3);
    shared.failing = true;
    await scheduler.advance(clock, 50);
    expect(store.counts.failedSyncs).toBe(1);
    await expect(consume(store, [policy])).rejects.toThrow('connection reset');
    shared.failing = false;
    await scheduler.advance(clock, 50);
    expect(shared.count('sync')).toBe(1);
    expect(await sharedRemaining(shared, policy)).toBe(8);
  });

  it('gives a refund back here while its units are unsent, and from Redis once they are', async () => {
    const { clock, scheduler, shared, instance } = setup();
    const store = instance();
    const policy = spec({ limit: 3 });
    await admittedOf(store, [policy], 3);
    await store.run({ op: 'refund', key: KEY, specs: [policy] });
    expect(shared.count('refund')).toBe(0);
    expect(await admittedOf(store, [policy], 2)).toBe(1);
    await scheduler.advance(clock, 50);
    await store.run({ op: 'refund', key: KEY, specs: [policy] });
    expect(shared.count('refund')).toBe(1);
    expect(await sharedRemaining(shared, policy)).toBe(1);
  });

  it('keeps a refund of a unit dropped with a failed sync here: Redis never counted it', async () => {
    const { clock, scheduler, shared, instance } = setup();
    const store = instance();
    const policy = spec();
    await admittedOf(store, [policy], 3);
    shared.failing = true;
    await scheduler.advance(clock, 50);
    shared.failing = false;
    await store.run({ op: 'refund', key: KEY, specs: [policy] });
    expect(shared.count('refund')).toBe(0);
    expect(await sharedRemaining(shared, policy)).toBe(8);
  });

  it('sends what is unsent when it closes, and leaves every later call to the store', async () => {
    const { shared, instance } = setup();
    const store = instance();
    const policy = spec();
    await admittedOf(store, [policy], 5);
    await store.close();
    expect(await sharedRemaining(shared, policy)).toBe(5);
    await admittedOf(store, [policy], 1);
    expect(shared.count('consume')).toBe(3);
  });

  it('forgets its view on block, unblock and reset, so the next request asks Redis', async () => {
    const { shared, instance } = setup();
    const store = instance();
    const policy = spec();
    await admittedOf(store, [policy], 3);
    expect(shared.count('consume')).toBe(2);
    await store.run({ op: 'block', key: KEY, specs: [policy], durationMs: 60_000 });
    const blocked = await consume(store, [policy]);
    expect(blocked.outcomes[0]!.reason).toBe('blocked');
    expect(shared.count('consume')).toBe(3);
  });

  it('leaves exact policies and candidates to the store', async () => {
    const { shared, instance } = setup();
    const store = instance();
    const exact = spec({ consistency: 'exact' });
    await admittedOf(store, [exact], 3);
    const eventual = spec({ name: 'live' });
    const candidate: PolicySpec = { ...eventual, name: 'live~c', mode: 'candidate' };
    await admittedOf(store, [eventual, candidate], 3);
    expect(shared.count('consume')).toBe(6);
    expect(store.counts).toMatchObject({ local: 0, exact: 0 });
  });
});
