// SluiceThrottlerStorage counts as @nestjs/throttler's own storage does: each hit for ttl after it
// was made, wherever the clock stands when a caller's first hit comes. Every case runs with the
// first hit at several phases of a ttl-long clock-aligned window, on Redis and in memory.
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, SluiceEngine } from '@sluice/nest/internals';
import { MemoryStore, RedisStore } from '@sluice/nest/engine';
import { SluiceThrottlerStorage } from '@sluice/nest/throttler';
import { closeAll, connectRedis, filePrefixes } from '../../support/redis.clients.js';

const SECOND = 1_000_000;
const TTL_MS = 10_000;
/** A multiple of the ttl: a clock-aligned window would start here. */
const ALIGNED = 1_700_000_000 * SECOND;
/** Where in a ttl-long aligned window the first hit falls. */
const PHASES = [0, 0.1, 0.37, 0.5, 0.9, 0.9999];

const prefixes = filePrefixes('throttler-windows');
let redis: Redis;

beforeAll(() => {
  redis = connectRedis();
});

afterAll(async () => {
  await prefixes.removeAll(redis);
  await closeAll();
});

const STORES = {
  redis: (clock: ManualClock) => new RedisStore(connectRedis(), { clock: clock.now }),
  memory: (clock: ManualClock) => new MemoryStore({ clock: clock.now }),
};

function storageAt(kind: keyof typeof STORES, phase: number) {
  const clock = new ManualClock(ALIGNED + Math.round(phase * TTL_MS * 1000));
  const engine = new SluiceEngine({ store: STORES[kind](clock), prefix: prefixes.next() });
  return { clock, storage: new SluiceThrottlerStorage(engine) };
}

describe.each(Object.keys(STORES) as Array<keyof typeof STORES>)('on %s', (kind) => {
  describe.each(PHASES)('first hit at %s of an aligned window', (phase) => {
    it('reports the whole ttl on a first hit', async () => {
      const { storage } = storageAt(kind, phase);
      expect(await storage.increment('caller', TTL_MS, 3, TTL_MS, 'default')).toEqual({
        totalHits: 1,
        timeToExpire: 10,
        isBlocked: false,
        timeToBlockExpire: 0,
      });
    });

    it('counts hits spread over one ttl together, across any aligned boundary', async () => {
      const { clock, storage } = storageAt(kind, phase);
      const hit = () => storage.increment('caller', TTL_MS, 3, TTL_MS, 'default');
      const seen = [];
      for (const wait of [0, 4, 4, 1.9]) {
        clock.advance(wait * SECOND);
        seen.push(await hit());
      }
      expect(seen.map((record) => [record.totalHits, record.isBlocked])).toEqual([
        [1, false],
        [2, false],
        [3, false],
        [4, true],
      ]);
      // The fourth hit, 9.9 s after the first, started a block of blockDuration.
      expect(seen[3]?.timeToBlockExpire).toBe(10);
    });

    it('lets a hit go ttl after it was made, not at a window boundary', async () => {
      const { clock, storage } = storageAt(kind, phase);
      const hit = () => storage.increment('caller', TTL_MS, 2, 0, 'default');
      expect((await hit()).isBlocked).toBe(false); // t = 0
      clock.advance(6 * SECOND);
      expect((await hit()).isBlocked).toBe(false); // t = 6 s
      clock.advance(3.9 * SECOND);
      const full = await hit(); // t = 9.9 s: both earlier hits still count
      expect([full.isBlocked, full.timeToBlockExpire]).toEqual([true, 1]);
      clock.advance(0.6 * SECOND);
      // t = 10.5 s: the first hit has expired, the one of 6 s has not.
      expect(await hit()).toMatchObject({ totalHits: 2, isBlocked: false });
      clock.advance(0.5 * SECOND);
      expect((await hit()).isBlocked).toBe(true); // t = 11 s: 6 s and 10.5 s count
    });

    it('blocks for blockDuration, then counts from zero', async () => {
      const { clock, storage } = storageAt(kind, phase);
      const hit = () => storage.increment('caller', TTL_MS, 1, 3_000, 'short');
      await hit();
      expect(await hit()).toMatchObject({ isBlocked: true, timeToBlockExpire: 3 });
      clock.advance(2 * SECOND);
      expect(await hit()).toMatchObject({ isBlocked: true, timeToBlockExpire: 1 });
      clock.advance(1 * SECOND);
      expect(await hit()).toMatchObject({ totalHits: 1, isBlocked: false, timeToExpire: 10 });
    });
  });
});
