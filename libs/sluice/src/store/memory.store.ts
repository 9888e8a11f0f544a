import { systemClock, type Clock } from '../clock/clock.js';
import { runOperation, type StateAccess } from './operations.js';
import type { SluiceStore, StoreCall, StoreResult } from './store.types.js';

/** How a MemoryStore is bounded and what time it decides at. */
export interface MemoryStoreOptions {
  /** Most keys kept; past it the least recently used key is dropped. Default 100 000. */
  maxKeys?: number;
  /** Default the system clock. */
  clock?: Clock;
}

interface Slot {
  value: unknown;
  /** µs */
  expiresAt: number;
}

/**
 * Decides in this process with the TypeScript twins of the Lua scripts. Bounded, and without a
 * timer per key: an expired key is dropped when it is next read or when room is needed.
 */
export class MemoryStore implements SluiceStore {
  private readonly slots = new Map<string, Slot>();
  private readonly maxKeys: number;
  private readonly clock: Clock;

  constructor(options: MemoryStoreOptions = {}) {
    this.maxKeys = options.maxKeys ?? 100_000;
    this.clock = options.clock ?? systemClock;
    if (!Number.isSafeInteger(this.maxKeys) || this.maxKeys < 1) {
      throw new RangeError(`MemoryStore: maxKeys must be a positive integer, got ${this.maxKeys}`);
    }
  }

  /** Keys held now, expired ones not yet dropped included. */
  get size(): number {
    return this.slots.size;
  }

  /** Decides one call, as RedisStore does in Lua. */
  run(call: StoreCall): Promise<StoreResult> {
    const now = this.clock();
    return Promise.resolve(runOperation(this.access(now), call, now));
  }

  private access(now: number): StateAccess {
    const slots = this.slots;
    return {
      get: <T>(key: string): T | undefined => {
        const slot = slots.get(key);
        if (slot === undefined) return undefined;
        slots.delete(key);
        if (slot.expiresAt <= now) return undefined;
        slots.set(key, slot);
        return slot.value as T;
      },
      set: (key, value, ttl) => {
        slots.delete(key);
        if (ttl <= 0) return;
        slots.set(key, { value, expiresAt: now + ttl });
        this.evict(now);
      },
      delete: (key) => {
        slots.delete(key);
      },
    };
  }

  /** Drops expired keys from the least recently used end, then the oldest while still too many. */
  private evict(now: number): void {
    for (const [key, slot] of this.slots) {
      if (slot.expiresAt > now && this.slots.size <= this.maxKeys) return;
      this.slots.delete(key);
    }
  }
}
