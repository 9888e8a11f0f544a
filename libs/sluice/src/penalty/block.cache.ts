import { getOrAdd, newMap } from '../collections/get-or-add.js';
import { storedForm } from '../keys/identifier.js';

/**
 * What the cache files an identifier under: its stored form in Redis keys, the identifier itself
 * or, for a long one, a digest of 46 characters. So the cache's size is bounded by its count, and
 * a block lifted by its stored key leaves the cache too.
 */
const keyOf = storedForm;

export interface CachedBlock {
  /** Epoch ms the block ends. */
  untilMs: number;
  /** Epoch ms the caller may retry: the block's end, or later when its limit still refuses. */
  retryAtMs: number;
  offence: number;
}

interface Entry {
  block: CachedBlock;
  /** A request found the block since it was remembered or last given a second chance. */
  found: boolean;
  /** Where the entry sits: its map of identifiers, and its identifier there. */
  identifiers: Map<string, Entry>;
  identifier: string;
}

/**
 * The blocks this instance has seen, so a blocked identifier's requests are refused without a
 * Redis call until it may retry. A hit only marks its entry: refusing a blocked identifier writes
 * nothing, and looks it up by the identifier itself (policy → key kind → identifier), whose hash
 * the request's string then keeps for the per-identifier tally. Past the capacity, a new block
 * evicts the earliest remembered one nobody has found since it was remembered or last passed over;
 * a found one is passed over once, to the back of the line ("second chance"). Up to the capacity,
 * every block is kept, however the traffic goes round them; beyond it, blocks nobody asks for go
 * first.
 */
export class BlockCache {
  private readonly byPolicy = new Map<string, Map<string, Map<string, Entry>>>();
  /** Every entry, earliest remembered (or passed over) first. */
  private readonly order = new Set<Entry>();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.order.size;
  }

  find(
    policy: string,
    keyKind: string,
    identifier: string,
    nowMs: number,
  ): CachedBlock | undefined {
    const entry = this.byPolicy.get(policy)?.get(keyKind)?.get(keyOf(identifier));
    if (entry === undefined) return undefined;
    if (entry.block.retryAtMs <= nowMs) {
      this.remove(entry);
      return undefined;
    }
    entry.found = true;
    return entry.block;
  }

  remember(policy: string, keyKind: string, raw: string, block: CachedBlock): void {
    if (this.capacity === 0) return;
    const identifier = keyOf(raw);
    const identifiers = this.identifiersOf(policy, keyKind);
    const existing = identifiers.get(identifier);
    if (existing !== undefined) this.remove(existing);
    while (this.order.size >= this.capacity) this.evictOne();
    const entry: Entry = { block, found: false, identifiers, identifier };
    identifiers.set(identifier, entry);
    this.order.add(entry);
  }

  forget(policy: string, keyKind: string, identifier: string): void {
    this.forgetKey(policy, keyKind, keyOf(identifier));
  }

  /** Forgets a block named by its stored key (a lifting by key, docs/operations.md). */
  forgetKey(policy: string, keyKind: string, key: string): void {
    const entry = this.byPolicy.get(policy)?.get(keyKind)?.get(key);
    if (entry !== undefined) this.remove(entry);
  }

  /** Forgets every block cached under a policy: its definition changed (an override, say). */
  forgetPolicy(policy: string): void {
    const byKeyKind = this.byPolicy.get(policy);
    if (byKeyKind === undefined) return;
    for (const identifiers of byKeyKind.values()) {
      for (const entry of identifiers.values()) this.order.delete(entry);
    }
    this.byPolicy.delete(policy);
  }

  private identifiersOf(policy: string, keyKind: string): Map<string, Entry> {
    return getOrAdd(getOrAdd(this.byPolicy, policy, newMap), keyKind, newMap);
  }

  private remove(entry: Entry): void {
    entry.identifiers.delete(entry.identifier);
    this.order.delete(entry);
  }

  /** Evicts the earliest entry not found since it was remembered, passing over found ones once. */
  private evictOne(): void {
    for (const entry of this.order) {
      this.order.delete(entry);
      if (!entry.found) {
        entry.identifiers.delete(entry.identifier);
        return;
      }
      entry.found = false;
      this.order.add(entry);
    }
  }
}
