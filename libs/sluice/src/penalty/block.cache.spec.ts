import { describe, expect, it } from 'vitest';
import { storedForm } from '../keys/identifier.js';
import { BlockCache } from './block.cache.js';

describe('BlockCache', () => {
  it('answers until the block ends, then forgets it', () => {
    const cache = new BlockCache(10);
    cache.remember('login', 'ip', '10.0.0.1', { untilMs: 2_000, retryAtMs: 2_000, offence: 1 });
    expect(cache.find('login', 'ip', '10.0.0.1', 1_999)).toEqual({
      untilMs: 2_000,
      retryAtMs: 2_000,
      offence: 1,
    });
    expect(cache.find('login', 'ip', '10.0.0.1', 2_000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps refusing past the block while the limit itself would still refuse', () => {
    const cache = new BlockCache(10);
    cache.remember('login', 'ip', '10.0.0.1', { untilMs: 2_000, retryAtMs: 5_000, offence: 1 });
    expect(cache.find('login', 'ip', '10.0.0.1', 4_999)?.untilMs).toBe(2_000);
    expect(cache.find('login', 'ip', '10.0.0.1', 5_000)).toBeUndefined();
  });

  it('keeps policies, key kinds and identifiers apart', () => {
    const cache = new BlockCache(10);
    cache.remember('login', 'ip', '42', { untilMs: 5_000, retryAtMs: 5_000, offence: 1 });
    expect(cache.find('reply', 'ip', '42', 0)).toBeUndefined();
    expect(cache.find('login', 'user', '42', 0)).toBeUndefined();
    expect(cache.find('login', 'ip', '4', 0)).toBeUndefined();
    expect(cache.find('login', 'ip', '42', 0)).toBeDefined();
  });

  it('holds at most its capacity, dropping the least recently used block', () => {
    const cache = new BlockCache(3);
    for (const id of ['a', 'b', 'c'])
      cache.remember('p', 'ip', id, { untilMs: 9_000, retryAtMs: 9_000, offence: 1 });
    cache.find('p', 'ip', 'a', 0);
    cache.remember('p', 'ip', 'd', { untilMs: 9_000, retryAtMs: 9_000, offence: 1 });
    expect(cache.size).toBe(3);
    expect(cache.find('p', 'ip', 'b', 0)).toBeUndefined();
    for (const id of ['a', 'c', 'd']) expect(cache.find('p', 'ip', id, 0)).toBeDefined();
  });

  it('keeps the most recently used blocks, as many as its capacity, whatever the traffic', () => {
    const capacity = 1000;
    const cache = new BlockCache(capacity);
    const block = { untilMs: 9_000, retryAtMs: 9_000, offence: 1 };
    for (let i = 0; i < 5000; i++) {
      cache.remember('p', 'ip', `new-${i}`, block);
      // A hot identifier, found between every new block, is never dropped.
      expect(cache.find('p', 'ip', 'new-0', 0)).toBeDefined();
      expect(cache.size).toBeLessThanOrEqual(capacity);
    }
    for (let i = 5000 - (capacity - 1); i < 5000; i++) {
      expect(cache.find('p', 'ip', `new-${i}`, 0)).toBeDefined();
    }
    expect(cache.find('p', 'ip', 'new-1', 0)).toBeUndefined();
  });

  it('keeps every block while there are no more than its capacity, found round and round', () => {
    const capacity = 1000;
    const cache = new BlockCache(capacity);
    const block = { untilMs: 9_000, retryAtMs: 9_000, offence: 1 };
    for (let i = 0; i < capacity; i++) cache.remember('p', 'header:x-user', `user-${i}`, block);
    let missed = 0;
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < capacity; i++) {
        if (cache.find('p', 'header:x-user', `user-${i}`, 0) === undefined) missed++;
      }
    }
    expect(missed).toBe(0);
    expect(cache.size).toBe(capacity);
  });

  it('passes over a block found since it was remembered once, before the blocks nobody asked for', () => {
    const cache = new BlockCache(4);
    const block = { untilMs: 9_000, retryAtMs: 9_000, offence: 1 };
    for (const id of ['a', 'b', 'c', 'd']) cache.remember('p', 'ip', id, block);
    cache.find('p', 'ip', 'a', 0);
    cache.find('p', 'ip', 'c', 0);
    cache.remember('p', 'ip', 'e', block);
    cache.remember('p', 'ip', 'f', block);
    expect(cache.size).toBe(4);
    const kept = ['a', 'b', 'c', 'd', 'e', 'f'].filter((id) => cache.find('p', 'ip', id, 0));
    expect(kept).toEqual(['a', 'c', 'e', 'f']);
  });

  it('remembers nothing with a capacity of 0, and one block with 1', () => {
    const block = { untilMs: 9_000, retryAtMs: 9_000, offence: 1 };
    const none = new BlockCache(0);
    none.remember('p', 'ip', 'a', block);
    expect(none.find('p', 'ip', 'a', 0)).toBeUndefined();
    const one = new BlockCache(1);
    one.remember('p', 'ip', 'a', block);
    one.remember('p', 'ip', 'b', block);
    expect(one.size).toBe(1);
    expect(one.find('p', 'ip', 'b', 0)).toBeDefined();
  });

  it('lets an operator lift a block at once', () => {
    const cache = new BlockCache(3);
    cache.remember('p', 'ip', 'a', { untilMs: 9_000, retryAtMs: 9_000, offence: 2 });
    cache.forget('p', 'ip', 'a');
    expect(cache.find('p', 'ip', 'a', 0)).toBeUndefined();
  });

  it('files long identifiers under their stored digest: apart however much they share', () => {
    const cache = new BlockCache(10);
    const shared = 'eyJhbGciOiJIUzI1NiJ9.'.padEnd(14_000, 'x');
    const [first, second] = [storedForm(`${shared}1`), storedForm(`${shared}2`)];
    expect(first).toHaveLength(46);
    cache.remember('api', 'header:authorization', first, { untilMs: 9, retryAtMs: 9, offence: 1 });
    expect(cache.find('api', 'header:authorization', first, 1)?.offence).toBe(1);
    expect(cache.find('api', 'header:authorization', second, 1)).toBeUndefined();
    cache.forget('api', 'header:authorization', first);
    expect(cache.find('api', 'header:authorization', first, 1)).toBeUndefined();
  });

  it('keeps an identifier that looks like a digest apart from the digest', () => {
    const cache = new BlockCache(10);
    const long = storedForm('y'.repeat(200));
    cache.remember('api', 'user', long, { untilMs: 9, retryAtMs: 9, offence: 1 });
    const lookalike = storedForm(`#h:${'y'.repeat(10)}`);
    expect(cache.find('api', 'user', lookalike, 1)).toBeUndefined();
    cache.remember('api', 'user', lookalike, { untilMs: 9, retryAtMs: 9, offence: 2 });
    expect(cache.find('api', 'user', long, 1)?.offence).toBe(1);
    expect(cache.find('api', 'user', lookalike, 1)?.offence).toBe(2);
  });

  it("forgets a policy's blocks, and only that policy's", () => {
    const cache = new BlockCache(10);
    cache.remember('search', 'user', 'draco', { untilMs: 9, retryAtMs: 9, offence: 1 });
    cache.remember('search', 'ip', '10.0.0.1', { untilMs: 9, retryAtMs: 9, offence: 1 });
    cache.remember('reply', 'user', 'draco', { untilMs: 9, retryAtMs: 9, offence: 1 });
    cache.forgetPolicy('search');
    expect(cache.find('search', 'user', 'draco', 1)).toBeUndefined();
    expect(cache.find('search', 'ip', '10.0.0.1', 1)).toBeUndefined();
    expect(cache.find('reply', 'user', 'draco', 1)?.offence).toBe(1);
    expect(cache.size).toBe(1);
  });
});
