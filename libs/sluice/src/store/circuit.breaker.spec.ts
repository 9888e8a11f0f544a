import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock/clock.js';
import { BreakerStore } from './breaker.store.js';
import { CircuitBreaker, CircuitOpenError, type BreakerState } from './circuit.breaker.js';
import type { SluiceStore, StoreCall, StoreResult } from './store.types.js';

function breaker(failureThreshold = 3, cooldownMs = 1000) {
  const clock = new ManualClock(0);
  const changes: BreakerState[] = [];
  const subject = new CircuitBreaker({
    failureThreshold,
    cooldownMs,
    clock: clock.now,
    onStateChange: (state) => changes.push(state),
  });
  let calls = 0;
  const ok = () => subject.run(() => Promise.resolve(++calls));
  const fail = () =>
    subject.run(() => {
      calls++;
      return Promise.reject(new Error('timeout'));
    });
  return {
    subject,
    changes,
    ok,
    fail,
    advance: (ms: number) => clock.advance(ms * 1000),
    calls: () => calls,
  };
}

describe('CircuitBreaker', () => {
  it('opens after the threshold of consecutive failures and then refuses without calling', async () => {
    const b = breaker(3);
    for (let i = 0; i < 3; i++) await expect(b.fail()).rejects.toThrow('timeout');
    expect(b.subject.state).toBe('open');
    await expect(b.ok()).rejects.toBeInstanceOf(CircuitOpenError);
    expect(b.calls()).toBe(3);
  });

  it('a success between failures starts the count again', async () => {
    const b = breaker(3);
    await expect(b.fail()).rejects.toThrow();
    await expect(b.fail()).rejects.toThrow();
    await b.ok();
    await expect(b.fail()).rejects.toThrow();
    await expect(b.fail()).rejects.toThrow();
    expect(b.subject.state).toBe('closed');
  });

  it('after the cooldown one probe goes through: success closes, others wait for it', async () => {
    const b = breaker(1, 1000);
    await expect(b.fail()).rejects.toThrow();
    b.advance(999);
    await expect(b.ok()).rejects.toBeInstanceOf(CircuitOpenError);
    b.advance(1);
    let release: () => void = () => undefined;
    const probe = b.subject.run(() => new Promise<void>((resolve) => (release = resolve)));
    await expect(b.ok()).rejects.toBeInstanceOf(CircuitOpenError);
    release();
    await probe;
    expect(b.subject.state).toBe('closed');
    await expect(b.ok()).resolves.toBeGreaterThan(0);
    expect(b.changes).toEqual(['open', 'half-open', 'closed']);
  });

  it('a failed probe opens it for another full cooldown', async () => {
    const b = breaker(1, 1000);
    await expect(b.fail()).rejects.toThrow();
    b.advance(1000);
    await expect(b.fail()).rejects.toThrow('timeout');
    expect(b.subject.state).toBe('open');
    b.advance(999);
    await expect(b.ok()).rejects.toBeInstanceOf(CircuitOpenError);
    b.advance(1);
    await expect(b.ok()).resolves.toBe(3);
  });
});

/** A store that reports each call's end itself, failing while `failing` is set. */
function watchingStore() {
  const state = { failing: true, sent: 0 };
  const answer = (call: StoreCall): Promise<StoreResult> => {
    state.sent++;
    return state.failing && call.undo !== true
      ? Promise.reject(new Error('connection reset'))
      : Promise.resolve({ admitted: true, outcomes: [] });
  };
  const store: SluiceStore = {
    run: answer,
    runWatched: (call, watcher) => {
      const reply = answer(call);
      reply.then(
        () => watcher.succeeded(),
        () => watcher.failed(),
      );
      return reply;
    },
  };
  return { state, store };
}

const consume: StoreCall = { op: 'consume', key: 'sluice:{ip:203.0.113.7}', specs: [] };

describe('BreakerStore over a store that reports each call itself', () => {
  it('opens on the failures the store reports, and then refuses without sending', async () => {
    const { state, store } = watchingStore();
    const guarded = new BreakerStore(store, new CircuitBreaker({ failureThreshold: 2 }));
    for (let i = 0; i < 2; i++) await expect(guarded.run(consume)).rejects.toThrow('reset');
    expect(guarded.breaker.state).toBe('open');
    await expect(guarded.run(consume)).rejects.toBeInstanceOf(CircuitOpenError);
    expect(state.sent).toBe(2);
  });

  it('sends a grant taken back while open, and its success does not close the breaker', async () => {
    const { state, store } = watchingStore();
    const guarded = new BreakerStore(store, new CircuitBreaker({ failureThreshold: 1 }));
    await expect(guarded.run(consume)).rejects.toThrow('reset');
    await expect(guarded.run({ ...consume, undo: true })).resolves.toMatchObject({
      admitted: true,
    });
    expect(guarded.breaker.state).toBe('open');
    expect(state.sent).toBe(2);
  });
});
