import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Decision } from '../engine/decision.js';
import type { Policy } from '../policy/policy.types.js';
import type { Clock } from '../clock/clock.js';
import { PENALTY_STREAM, SLUICE_CLOCK } from '../config/sluice.tokens.js';
import { loadPeerIfInstalled } from '../peers/optional-peer.loader.js';
import type { PenaltyEvent } from '../penalty/penalty.event.js';
import type { PenaltyStream } from '../penalty/penalty.stream.js';
import {
  blocksIn,
  penaltyEvent,
  penaltyEventId,
  type PenaltyContext,
  type PenaltyNews,
} from './penalty-event.builder.js';
import { PenaltyOutbox } from './penalty.outbox.js';

export type { PenaltyContext } from './penalty-event.builder.js';

/** Blocks this instance has reported, so a block met again (no block cache) is not re-sent. */
const REMEMBERED_BLOCKS = 10_000;

interface EmitterLike {
  emit(event: string, payload: unknown): unknown;
}

/**
 * Tells the rest of the system about blocks: in-process on `@nestjs/event-emitter` when the app
 * has it (events named `sluice.block.started` and so on), and on the penalty stream, which the
 * admin consumes, through the outbox (PenaltyOutbox). Events are built by penalty-event.builder.
 */
@Injectable()
export class PenaltyEventPublisher implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Sluice');
  private readonly outbox: PenaltyOutbox;
  private readonly reported = new Set<string>();
  private emitter: EmitterLike | undefined;

  constructor(
    @Inject(PENALTY_STREAM) stream: PenaltyStream,
    @Inject(ModuleRef) private readonly moduleRef: ModuleRef,
    @Inject(SLUICE_CLOCK) private readonly clock: Clock,
  ) {
    this.outbox = new PenaltyOutbox(stream, this.logger, clock);
  }

  /** Events not yet in the stream. */
  get pending(): number {
    return this.outbox.pending;
  }

  /** Finds `@nestjs/event-emitter`'s emitter, when the app has one, to emit each event on too. */
  async onModuleInit(): Promise<void> {
    const loaded = await loadPeerIfInstalled(
      '@nestjs/event-emitter',
      () => import('@nestjs/event-emitter'),
    );
    if (loaded === undefined) return;
    try {
      this.emitter = this.moduleRef.get(loaded.EventEmitter2, { strict: false });
    } catch {
      // The app did not import EventEmitterModule: the stream alone carries the events.
    }
  }

  /** Sends what the outbox holds, then stops it. */
  async onApplicationShutdown(): Promise<void> {
    await this.outbox.close();
  }

  /** The blocks a refused decision reports (penalty-event.builder's blocksIn says which). */
  blocksSeen(decision: Decision, policies: readonly Policy[], context: PenaltyContext): void {
    for (const news of blocksIn(decision, policies)) this.publish(news, context);
  }

  /** Publishes a block set by hand. */
  manualBlock(
    policy: string,
    context: PenaltyContext,
    block: { untilMs: number; durationMs: number },
    actor: string | null,
    reason: string | null,
  ): void {
    const startedAt = block.untilMs - block.durationMs;
    const details = { startedAt, expiresAt: block.untilMs, actor, reason };
    this.publish({ type: 'block.manual', policy, details, inProcess: true }, context);
  }

  /** `untilMs`: when the lifted block would have ended, which names it among the key's blocks. */
  lifted(
    policy: string,
    context: PenaltyContext,
    untilMs: number,
    actor: string | null,
    reason: string | null,
  ): void {
    const details = { expiresAt: untilMs, actor, reason };
    this.publish({ type: 'block.lifted', policy, details, inProcess: true }, context);
  }

  /**
   * Tells this process's listeners only: for what the admin learns by itself, such as a block that
   * has run its course, which no instance is there to see.
   */
  emitLocally(event: PenaltyEvent): void {
    try {
      this.emitter?.emit(`sluice.${event.type}`, event);
    } catch (error) {
      this.logger.error(`A sluice.${event.type} listener failed: ${(error as Error).message}`);
    }
  }

  /** Sends what waits, in batches; on failure keeps it and tries again a second later. */
  flush(): Promise<void> {
    return this.outbox.flush();
  }

  private publish(news: PenaltyNews, context: PenaltyContext): void {
    const id = penaltyEventId(news.type, news.policy, context, news.details.expiresAt);
    if (this.alreadyReported(id)) return;
    const event = penaltyEvent(id, news, context, Math.floor(this.clock() / 1000));
    if (news.inProcess) this.emitLocally(event);
    this.outbox.add(event);
  }

  /** Remembers a block's id; true when it was reported already. Liftings are never repeated. */
  private alreadyReported(id: string): boolean {
    if (this.reported.has(id)) return true;
    this.reported.add(id);
    if (this.reported.size > REMEMBERED_BLOCKS) {
      this.reported.delete(this.reported.values().next().value as string);
    }
    return false;
  }
}
