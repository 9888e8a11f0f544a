import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock/clock.js';
import { MemoryStore } from '../store/memory.store.js';
import type { SluiceStore, StoreCall, StoreResult } from '../store/store.types.js';
import { SluiceEngine } from './sluice.engine.js';

const rule = { algorithm: 'fixed-window', periodMs: 60_000, key: 'user' } as const;

function engine(): SluiceEngine {
  const clock = new ManualClock(1_800_000_000_000_000);
  return new SluiceEngine({
    store: new MemoryStore({ clock: () => clock.now() }),
    clock: clock.now,
    policies: [
      { ...rule, name: 'enforced', limit: 2 },
      { ...rule, name: 'shadowed', limit: 1, mode: 'shadow' },
      { ...rule, name: 'off', limit: 1, mode: 'off' },
      {
        ...rule,
        name: 'partner',
        limit: 1,
        overrides: [{ identifier: 'harry', limit: null, unlimited: true, expiresAt: null }],
      },
    ],
  });
}

const quietOutcome = {
  allowed: false,
  reason: 'limit' as const,
  remaining: 0,
  reset: 60_000_000,
  retry: 0,
  delay: 0,
  blockedUntil: 0,
  offence: 0,
  blockStarted: false,
};

describe('SluiceEngine.charge', () => {
  it('says which policies its call charged: admitted ones, not settled, shadow-refused or refused', async () => {
    const sluice = engine();
    const target = sluice.target(['enforced', 'shadowed', 'off', 'partner'], 'harry');
    expect([target.keyKind, target.stored]).toEqual(['user', 'harry']);
    const names = async () => (await sluice.charge(target)).charged.map((policy) => policy.name);

    expect(await names()).toEqual(['enforced', 'shadowed']);
    // The shadow policy would refuse now: the request passes, and only `enforced` is charged.
    expect(await names()).toEqual(['enforced']);
    // `enforced` refuses: all or nothing, nothing is charged.
    expect(await names()).toEqual([]);
  });

  it('asks a store that answers at once through start, and never its run', async () => {
    const clock = new ManualClock(1_800_000_000_000_000);
    const started: StoreCall[] = [];
    const store: SluiceStore = {
      run: () => Promise.reject(new Error('run was called')),
      start: (call: StoreCall): StoreResult => {
        started.push(call);
        return { admitted: false, outcomes: [{ ...quietOutcome, reason: 'limit', retry: 5_000 }] };
      },
    };
    const sluice = new SluiceEngine({
      store,
      clock: clock.now,
      policies: [{ ...rule, name: 'enforced', limit: 2 }],
    });
    const decision = await sluice.consume('enforced', 'ann');
    expect(decision).toMatchObject({ allowed: false, policy: 'enforced', retryAfterMs: 5 });
    expect(started.map((call) => [call.op, call.key])).toEqual([
      ['consume', expect.stringContaining('ann')],
    ]);
  });

  it('waits on a store whose run answers with a thenable of its own, not a native promise', async () => {
    const clock = new ManualClock(1_800_000_000_000_000);
    const memory = new MemoryStore({ clock: () => clock.now() });
    const store: SluiceStore = {
      run: (call: StoreCall) => {
        const answer = memory.run(call);
        const thenable: PromiseLike<StoreResult> = {
          then: (fulfilled, rejected) => answer.then(fulfilled, rejected),
        };
        return thenable as Promise<StoreResult>;
      },
    };
    const sluice = new SluiceEngine({
      store,
      clock: clock.now,
      policies: [{ ...rule, name: 'enforced', limit: 2 }],
    });
    const decisions = [];
    for (let n = 0; n < 3; n++) decisions.push(await sluice.consume('enforced', 'ann'));
    expect(decisions.map((each) => [each.allowed, each.remaining])).toEqual([
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
  });

  it('resolves a target once: its policies, key kind and key, and refuses what cannot be decided', () => {
    const sluice = engine();
    const long = 'x'.repeat(300);
    expect(sluice.target('enforced', long).stored).toMatch(/^#h:[A-Za-z0-9_-]{43}$/);
    expect(() => sluice.target('nowhere', 'harry')).toThrow(/nowhere/);
    expect(() => sluice.target('enforced', '')).toThrow(/identifier/);
  });
});
