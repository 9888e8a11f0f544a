import { Inject, Injectable, Logger } from '@nestjs/common';
import { SluiceEngine } from '../engine/sluice.engine.js';
import { storedForm } from '../keys/identifier.js';
import { PolicyBus } from '../bus/policy.bus.js';
import { PenaltyEventPublisher } from '../events/penalty-event.publisher.js';
import { BlockCache } from '../penalty/block.cache.js';
import { CallDecider } from './call.decider.js';
import type { LiftOptions, ManualBlockOptions } from './sluice-service.types.js';

/**
 * Blocks set and lifted by hand (SluiceService's block and unblock): the store's, this instance's
 * cache of them, the other instances told, and the penalty events the audit records.
 */
@Injectable()
export class ManualBlocks {
  private readonly logger = new Logger('Sluice');
  @Inject(SluiceEngine) private readonly engine!: SluiceEngine;
  @Inject(CallDecider) private readonly decider!: CallDecider;
  @Inject(BlockCache) private readonly blocks!: BlockCache;
  @Inject(PolicyBus) private readonly bus!: PolicyBus;
  @Inject(PenaltyEventPublisher) private readonly penalties!: PenaltyEventPublisher;

  /** Blocks by hand for durationMs, replacing any current block's end; a `block.manual` event. */
  async block(
    policy: string,
    identifier: string,
    durationMs: number,
    options: ManualBlockOptions = {},
  ): Promise<{ untilMs: number }> {
    const result = await this.engine.block(policy, identifier, durationMs, options);
    const context = this.context(options.keyKind ?? this.keyOf(policy), identifier);
    const { untilMs } = result;
    this.blocks.remember(policy, context.keyKind, storedForm(identifier), {
      untilMs,
      retryAtMs: untilMs,
      offence: 0,
    });
    this.penalties.manualBlock(
      policy,
      context,
      { untilMs, durationMs },
      options.actor ?? null,
      options.reason ?? null,
    );
    return result;
  }

  /**
   * Lifts a block, and has every instance forget its cached copy; a `block.lifted` event when
   * there was one. Resolves false when the identifier was not blocked.
   */
  async unblock(policy: string, identifier: string, options: LiftOptions = {}): Promise<boolean> {
    const { key } = options;
    const context = {
      ...this.context(options.keyKind ?? this.keyOf(policy), identifier),
      ...(key === undefined ? {} : { key }),
    };
    const lifted = await this.engine.lift(policy, identifier, options);
    const target = {
      policy,
      keyKind: context.keyKind,
      identifier,
      ...(key === undefined ? {} : { key }),
    };
    await this.bus.announceUnblock(target).catch((error: unknown) => {
      this.logger.warn(`Other instances may keep the lifted block cached: ${String(error)}`);
    });
    if (lifted === null) return false;
    const { actor = null, reason = null } = options;
    this.penalties.lifted(policy, context, lifted.untilMs, actor, reason);
    return true;
  }

  /** A manual operation's key kind when none is given: the policy's own (the engine refuses an unknown one). */
  private keyOf(policy: string): string {
    return this.engine.policies.get(policy)?.key ?? 'user';
  }

  private context(keyKind: string, identifier: string) {
    return this.decider.eventContext(keyKind, identifier);
  }
}
