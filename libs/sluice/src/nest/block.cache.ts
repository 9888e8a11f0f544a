export interface CachedBlock {
  /** Epoch ms the block ends. */
  untilMs: number;
  /** Epoch ms the caller may retry: the block's end, or later when its limit still refuses. */
  retryAtMs: number;
  offence: number;
}

/**
 * The blocks this instance has seen, so a blocked identifier's requests are refused without a
 * Redis call until it may retry. Bounded by two generations rather than a strict LRU order, so a
 * hit on a recent block writes nothing: new and recently found blocks go to the young generation;
 * when it holds half the capacity, it becomes the old one and the old one is dropped. The blocks
 * found or remembered most recently — at least half the capacity of them — are always kept.
 */
export class BlockCache {
  private young = new Map<string, CachedBlock>();
  private old = new Map<string, CachedBlock>();
  private readonly generationSize: number;

  constructor(readonly capacity: number) {
    this.generationSize = Math.ceil(capacity / 2);
  }

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
    let block = this.young.get(key);
    if (block === undefined) {
      block = this.old.get(key);
      if (block === undefined) return undefined;
      this.old.delete(key);
      if (block.retryAtMs > nowMs) this.keep(key, block);
    }
    if (block.retryAtMs > nowMs) return block;
    this.young.delete(key);
    return undefined;
  }

  remember(policy: string, keyKind: string, identifier: string, block: CachedBlock): void {
    if (this.capacity === 0) return;
    const key = cacheKey(policy, keyKind, identifier);
    this.old.delete(key);
    this.keep(key, block);
  }

  forget(policy: string, keyKind: string, identifier: string): void {
    const key = cacheKey(policy, keyKind, identifier);
    this.young.delete(key);
    this.old.delete(key);
  }

  private keep(key: string, block: CachedBlock): void {
    if (!this.young.has(key) && this.young.size >= this.generationSize) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, block);
    // An odd capacity's two generations can hold one more than it.
    if (this.size > this.capacity) this.old.delete(this.old.keys().next().value as string);
  }
}

const cacheKey = (policy: string, keyKind: string, identifier: string): string =>
  `${policy}\u0000${keyKind}\u0000${identifier}`;
