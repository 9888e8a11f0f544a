import { storedForm } from '../keys/identifier.js';
import type { BlockCache } from '../penalty/block.cache.js';
import type { PolicyChannel } from './policy.channel.js';
import type { UnblockNotice } from './policy-snapshot.js';

/**
 * A lifted block leaves every instance's block cache: here at once, elsewhere when the notice
 * arrives. Without it an instance would keep refusing from its cache until the block's end.
 */
export class UnblockFanout {
  constructor(
    private readonly channel: PolicyChannel,
    private readonly blocks: BlockCache,
  ) {}

  /** Forgets the block here and tells every other instance to. */
  async announce(target: UnblockNotice['unblock']): Promise<void> {
    this.heard(target);
    await this.channel.announceUnblock(target);
  }

  /** Another instance (or this one) lifted a block. */
  heard({ policy, keyKind, identifier, key }: UnblockNotice['unblock']): void {
    this.blocks.forget(policy, keyKind, key ?? storedForm(identifier));
  }
}
