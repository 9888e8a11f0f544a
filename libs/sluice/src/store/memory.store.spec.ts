import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock/clock.js';
import { SluiceEngine } from '../engine/sluice.engine.js';
import { MemoryStore } from './memory.store.js';

const SECOND = 1_000_000;

function engineOn(store: MemoryStore): SluiceEngine {
  return new SluiceEngine({
    store,
    policies: [{ name: 'login', algorithm: 'fixed-window', limit: 1, periodMs: 60_000 }],
  });
}

describe('MemoryStore', () => {
  it('keeps at most maxKeys keys, however many identifiers pass', async () => {
    const store = new MemoryStore({ maxKeys: 100 });
    const engine = engineOn(store);
    for (let i = 0; i < 1_000; i++) await engine.consume('login', `user-${i}`);
    expect(store.size).toBe(100);
  });

  it('drops the least recently used key first', async () => {
    const store = new MemoryStore({ maxKeys: 3 });
    const engine = engineOn(store);
    await engine.consume('login', 'kept');
    for (let i = 0; i < 10; i++) {
      expect((await engine.consume('login', 'kept')).allowed).toBe(false);
      await engine.consume('login', `passer-${i}`);
    }
    // 'kept' was read on every round, so the passers were evicted around it.
    expect((await engine.consume('login', 'kept')).reason).toBe('limit');
    expect((await engine.consume('login', 'passer-0')).allowed).toBe(true);
  });

  it('forgets expired state without a timer per key', async () => {
    const clock = new ManualClock();
    const store = new MemoryStore({ clock: clock.now });
    const engine = engineOn(store);
    const timersBefore = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    for (let i = 0; i < 500; i++) await engine.consume('login', `user-${i}`);
    const timersAfter = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    expect(timersAfter).toBe(timersBefore);
    expect(store.size).toBe(500);
    expect((await engine.consume('login', 'user-0')).allowed).toBe(false);

    clock.advance(61 * SECOND);
    expect((await engine.consume('login', 'user-0')).allowed).toBe(true);
    // A write makes room by dropping expired keys from the least recently used end.
    await engine.consume('login', 'newcomer');
    expect(store.size).toBeLessThan(500);
  });

  it('refuses a maxKeys that is not a positive integer', () => {
    expect(() => new MemoryStore({ maxKeys: 0 })).toThrow(/maxKeys/);
    expect(() => new MemoryStore({ maxKeys: 1.5 })).toThrow(/maxKeys/);
  });
});
