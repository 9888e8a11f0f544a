import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { createHash, randomUUID } from 'node:crypto';
import type { Decision } from '../engine/decision.js';
import { toIdentifier } from '../keys/key.builder.js';
import type { Policy } from '../policy/policy.types.js';
import { PENALTY_STREAM } from '../config/sluice.tokens.js';
import { loadPeerIfInstalled } from '../peers/optional-peer.loader.js';
import { ThrottledLogger } from '../logging/throttled.logger.js';
import { blockDuration } from '../penalty/penalty.js';
import type { PenaltyEvent, PenaltyEventType } from '../penalty/penalty.event.js';
import type { PenaltyStream } from '../penalty/penalty.stream.js';

/** Events waiting for Redis beyond this many are dropped, oldest first, and the drop logged. */
const MAX_WAITING = 10_000;
const BATCH = 500;
const RETRY_MS = 1_000;
const LOG_EVERY_MS = 10_000;
/** Blocks this instance has reported, so a block met again (no block cache) is not re-sent. */
const REMEMBERED_BLOCKS = 10_000;

/** Who an event is about, and what this instance knows of itself. */
export interface PenaltyContext {
  keyKind: string;
  identifier: string;
  instanceId: string;
  policyVersion: number;
  route?: string;
}

interface EmitterLike {
  emit(event: string, payload: unknown): unknown;
}

/**
 * Tells the rest of the system about blocks: in-process on `@nestjs/event-emitter` when the app
 * has it (events named `sluice.block.started` and so on), and on the penalty stream, which the
 * admin consumes. Appends leave the request path: they are queued, sent in batches, and kept
 * while Redis is away.
 */
@Injectable()
export class PenaltyEventPublisher implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Sluice');
  private readonly waitLog = new ThrottledLogger(this.logger, LOG_EVERY_MS);
  private readonly waiting: PenaltyEvent[] = [];
  private readonly reported = new Set<string>();
  private emitter: EmitterLike | undefined;
  private flushing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private dropped = 0;

  constructor(
    @Inject(PENALTY_STREAM) private readonly stream: PenaltyStream,
    @Inject(ModuleRef) private readonly moduleRef: ModuleRef,
  ) {}

  /** Events not yet in the stream. */
  get pending(): number {
    return this.waiting.length;
  }

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

  async onApplicationShutdown(): Promise<void> {
    clearTimeout(this.timer);
    await this.flush();
    await this.stream.close();
  }

  /**
   * The blocks a refused decision reports. One this request set off is announced in-process and
   * on the stream; one this instance learns of from Redis (another instance set it off, or the
   * reply that started it was lost) goes on the stream only. Both carry the same id, derived from
   * the block, so the admin records each block once however many instances report it.
   */
  blocksSeen(decision: Decision, policies: readonly Policy[], context: PenaltyContext): void {
    for (const part of decision.policies) {
      if (part.blocked === undefined) continue;
      const policy = policies.find((each) => each.name === part.policy);
      const { offence, untilMs, started = false } = part.blocked;
      const type = offence > 1 ? 'block.escalated' : 'block.started';
      this.publish(
        type,
        part.policy,
        context,
        {
          offence,
          startedAt: untilMs - durationMs(policy, offence),
          expiresAt: untilMs,
          trigger: policy && {
            count: policy.penalty?.afterViolations ?? 0,
            limit: part.limit,
            windowMs: policy.periodMs,
            algorithm: policy.algorithm,
          },
        },
        started,
      );
    }
  }

  manualBlock(
    policy: string,
    context: PenaltyContext,
    block: { untilMs: number; durationMs: number },
    actor: string | null,
    reason: string | null,
  ): void {
    this.publish(
      'block.manual',
      policy,
      context,
      { startedAt: block.untilMs - block.durationMs, expiresAt: block.untilMs, actor, reason },
      true,
    );
  }

  /** `untilMs`: when the lifted block would have ended, which names it among the key's blocks. */
  lifted(
    policy: string,
    context: PenaltyContext,
    untilMs: number,
    actor: string | null,
    reason: string | null,
  ): void {
    this.publish('block.lifted', policy, context, { expiresAt: untilMs, actor, reason }, true);
  }

  private publish(
    type: PenaltyEventType,
    policy: string,
    context: PenaltyContext,
    details: Pick<PenaltyEvent, 'expiresAt'> &
      Partial<Pick<PenaltyEvent, 'offence' | 'startedAt' | 'trigger' | 'actor' | 'reason'>>,
    inProcess: boolean,
  ): void {
    const id = type === 'block.lifted' ? randomUUID() : blockId(policy, context, details.expiresAt);
    if (this.alreadyReported(id)) return;
    const event: PenaltyEvent = {
      id,
      type,
      occurredAt: Date.now(),
      policy,
      policyVersion: context.policyVersion,
      keyKind: context.keyKind,
      identifier: toIdentifier(context.identifier).display,
      offence: details.offence ?? 0,
      startedAt: details.startedAt ?? null,
      expiresAt: details.expiresAt,
      trigger: details.trigger ?? null,
      actor: details.actor ?? null,
      reason: details.reason ?? null,
      instanceId: context.instanceId,
      route: context.route ?? null,
    };
    if (inProcess) this.emitLocally(event);
    this.waiting.push(event);
    if (this.waiting.length > MAX_WAITING) {
      this.dropped += this.waiting.splice(0, this.waiting.length - MAX_WAITING).length;
    }
    this.schedule(0);
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
    this.flushing ??= this.send().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private schedule(delayMs: number): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, delayMs);
    if (delayMs > 0) this.timer.unref();
  }

  private async send(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.slice(0, BATCH);
      try {
        await this.stream.append(batch);
      } catch (error) {
        this.waitLog.warn(
          `Penalty events wait for Redis (${this.waiting.length}): ${String(error)}`,
        );
        this.schedule(RETRY_MS);
        return;
      }
      this.waiting.splice(0, batch.length);
    }
    if (this.dropped > 0) {
      this.logger.error(`${this.dropped} penalty events were dropped while Redis was away`);
      this.dropped = 0;
    }
  }
}

/** How long an automatic block at this offence lasts: the library's own rule, in whole ms. */
function durationMs(policy: Policy | undefined, offence: number): number {
  const rule = policy?.penalty;
  if (rule === null || rule === undefined) return 0;
  const micros = blockDuration(
    {
      afterViolations: rule.afterViolations,
      block: rule.blockMs * 1000,
      escalation: rule.escalation,
      maxBlock: rule.maxBlockMs * 1000,
      forgetAfter: rule.forgetAfterMs * 1000,
    },
    offence,
  );
  return Math.round(micros / 1000);
}

/** The same block, seen by any instance, gets the same id: its key and its end. */
function blockId(policy: string, context: PenaltyContext, untilMs: number): string {
  const { stored } = toIdentifier(context.identifier);
  const key = [policy, context.keyKind, stored, String(untilMs)].join('\u0000');
  return createHash('sha256').update(key).digest('hex').slice(0, 32);
}
