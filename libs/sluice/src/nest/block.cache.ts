export interface CachedBlock {
  /** Epoch ms the block ends. */
  untilMs: number;
  /** Epoch ms the caller may retry: the block's end, or later when its limit still refuses. */
  retryAtMs: number;
  offence: number;
}

/**
 * The blocks this instance has seen, so a blocked identifier's requests are refused without a
 * Redis call until it may retry. Bounded: the least recently used entry goes first.
 */
export class BlockCache {
  private readonly entries = new Map<string, CachedBlock>();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  find(
    policy: string,
    keyKind: string,
    identifier: string,
    nowMs: number,
  ): CachedBlock | undefined {
    const key = cacheKey(policy, keyKind, identifier);
    const block = this.entries.get(key);
    if (block === undefined) return undefined;
    this.entries.delete(key);
    if (block.retryAtMs <= nowMs) return undefined;
    this.entries.set(key, block);
    return block;
  }

  remember(policy: string, keyKind: string, identifier: string, block: CachedBlock): void {
    const key = cacheKey(policy, keyKind, identifier);
    this.entries.delete(key);
    this.entries.set(key, block);
    if (this.entries.size > this.capacity) {
      this.entries.delete(this.entries.keys().next().value as string);
    }
  }

  forget(policy: string, keyKind: string, identifier: string): void {
    this.entries.delete(cacheKey(policy, keyKind, identifier));
  }
}

const cacheKey = (policy: string, keyKind: string, identifier: string): string =>
  `${policy}\u0000${keyKind}\u0000${identifier}`;
