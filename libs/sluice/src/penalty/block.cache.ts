import { getOrAdd, newMap } from '../collections/get-or-add.js';

/** A block as the cache holds it. */
export interface CachedBlock {
  /** Epoch ms the block ends. */
  untilMs: number;
  /** Epoch ms the caller may retry: the block's end, or later when its limit still refuses. */
  retryAtMs: number;
  /** The block's offence level (0 for a manual one). */
  offence: number;
}

interface Entry {
  block: CachedBlock;
  /** A request found the block since it was remembered or last given a second chance. */
  found: boolean;
  /** Where the entry sits: its map of identifiers, and its identifier's stored form there. */
  identifiers: Map<string, Entry>;
  stored: string;
}

/**
 * The blocks this instance has seen, so a blocked identifier's requests are refused without a
 * Redis call until it may retry. Identifiers are filed under their stored form, as Redis keys hold
 * them (`storedForm` in keys/identifier.ts: the identifier, or `#h:` and a digest for a long one),
 * which the request's target already holds: the cache's size is bounded by its count, and a block
 * lifted by its key leaves it too. A hit only marks its entry: refusing a blocked identifier
 * writes nothing. Past the capacity, a new block
 * evicts the earliest remembered one nobody has found since it was remembered or last passed over;
 * a found one is passed over once, to the back of the line ("second chance"). Up to the capacity,
 * every block is kept, however the traffic goes round them; beyond it, blocks nobody asks for go
 * first.
 */
export class BlockCache {
  private readonly byPolicy = new Map<string, Map<string, Map<string, Entry>>>();
  /** Every entry, earliest remembered (or passed over) first. */
  private readonly order = new Set<Entry>();

  constructor(
    /** Blocks kept at most (SluiceModuleOptions.blockCacheSize). */
    readonly capacity: number,
  ) {}

  /** Blocks held now. */
  get size(): number {
    return this.order.size;
  }

  /** The block cached for the identifier, unless it may retry by `nowMs` (then it is dropped). */
  find(policy: string, keyKind: string, stored: string, nowMs: number): CachedBlock | undefined {
    const entry = this.byPolicy.get(policy)?.get(keyKind)?.get(stored);
    if (entry === undefined) return undefined;
    if (entry.block.retryAtMs <= nowMs) {
      this.remove(entry);
      return undefined;
    }
    entry.found = true;
    return entry.block;
  }

  /** Caches a block, evicting one past the capacity. */
  remember(policy: string, keyKind: string, stored: string, block: CachedBlock): void {
    if (this.capacity === 0) return;
    const identifiers = this.identifiersOf(policy, keyKind);
    const existing = identifiers.get(stored);
    if (existing !== undefined) this.remove(existing);
    while (this.order.size >= this.capacity) this.evictOne();
    const entry: Entry = { block, found: false, identifiers, stored };
    identifiers.set(stored, entry);
    this.order.add(entry);
  }

  /** Drops the identifier's cached block, if any. */
  forget(policy: string, keyKind: string, stored: string): void {
    const entry = this.byPolicy.get(policy)?.get(keyKind)?.get(stored);
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
    entry.identifiers.delete(entry.stored);
    this.order.delete(entry);
  }

  /** Evicts the earliest entry not found since it was remembered, passing over found ones once. */
  private evictOne(): void {
    for (const entry of this.order) {
      this.order.delete(entry);
      if (!entry.found) {
        entry.identifiers.delete(entry.stored);
        return;
      }
      entry.found = false;
      this.order.add(entry);
    }
  }
}
