export interface CachedBlock {
  /** Epoch ms the block ends. */
  untilMs: number;
  /** Epoch ms the caller may retry: the block's end, or later when its limit still refuses. */
  retryAtMs: number;
  offence: number;
}

interface Entry {
  block: CachedBlock;
  /** The generation in which a request last found the block (-1: none yet). */
  foundIn: number;
}

/**
 * The blocks this instance has seen, so a blocked identifier's requests are refused without a
 * Redis call until it may retry. Bounded by two generations rather than a strict LRU order, so a
 * hit on a recent block writes nothing to the maps: new blocks, and blocks found in the old
 * generation, go to the young one; when the young one holds the capacity, it becomes the old one.
 * Past the capacity, the old generation's earliest blocks are dropped first, except one found
 * while it was young, which gets one more turn. Up to the capacity, every block is kept, however
 * the traffic goes round them; beyond it, those least recently found or remembered go first.
 */
export class BlockCache {
  private young = new Map<string, Entry>();
  private old = new Map<string, Entry>();
  private generation = 0;

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.young.size + this.old.size;
  }

  find(
    policy: string,
    keyKind: string,
    identifier: string,
    nowMs: number,
  ): CachedBlock | undefined {
    const key = cacheKey(policy, keyKind, identifier);
    const entry = this.young.get(key) ?? this.promoted(key);
    if (entry === undefined) return undefined;
    if (entry.block.retryAtMs <= nowMs) {
      this.young.delete(key);
      return undefined;
    }
    entry.foundIn = this.generation;
    return entry.block;
  }

  remember(policy: string, keyKind: string, identifier: string, block: CachedBlock): void {
    if (this.capacity === 0) return;
    const key = cacheKey(policy, keyKind, identifier);
    this.old.delete(key);
    this.keep(key, { block, foundIn: -1 });
  }

  forget(policy: string, keyKind: string, identifier: string): void {
    const key = cacheKey(policy, keyKind, identifier);
    this.young.delete(key);
    this.old.delete(key);
  }

  private promoted(key: string): Entry | undefined {
    const entry = this.old.get(key);
    if (entry === undefined) return undefined;
    this.old.delete(key);
    this.keep(key, entry);
    return entry;
  }

  private keep(key: string, entry: Entry): void {
    if (!this.young.has(key) && this.young.size >= this.capacity) {
      this.old = this.young;
      this.young = new Map();
      this.generation++;
    }
    this.young.set(key, entry);
    while (this.size > this.capacity) this.dropEarliest();
  }

  private dropEarliest(): void {
    const [key, entry] = this.old.entries().next().value as [string, Entry];
    this.old.delete(key);
    if (entry.foundIn === this.generation - 1 && this.young.size < this.capacity) {
      this.young.set(key, entry);
    }
  }
}

const cacheKey = (policy: string, keyKind: string, identifier: string): string =>
  `${policy}\u0000${keyKind}\u0000${identifier}`;
