import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
// Types only, so `@nestjs/throttler` stays an optional peer: nothing of it is loaded at run time.
import type { ThrottlerStorage } from '@nestjs/throttler';
import { SluiceEngine } from '../engine/sluice.engine.js';
import { MAX_PERIOD_MS, MAX_SLIDING_LOG_LIMIT } from '../policy/policy.schema.js';

/** What the identifiers counted here are: the keys `@nestjs/throttler`'s guard generates. */
export const THROTTLER_KEY_KIND = 'throttler';

/**
 * Lets an app still on `@nestjs/throttler` decide in Sluice's engine:
 * `ThrottlerModule.forRoot({ throttlers, storage: new SluiceThrottlerStorage(engine) })`.
 * Each (throttler, ttl, limit, blockDuration) becomes a policy, registered on first use, that
 * blocks the caller for blockDuration once it goes over the limit.
 *
 * The throttler counts each caller's hits for ttl from its first one, wherever the clock stands;
 * a window aligned to the clock would let a burst straddling its boundary through twice and make
 * the first X-RateLimit-Reset shorter than ttl. So the policies keep a log of hits (sliding-log):
 * a caller's first hit reports the whole ttl, and no ttl-long stretch holds more than limit hits.
 * docs/guide.md (migrating from `@nestjs/throttler`) says where that differs from the throttler.
 */
@Injectable()
export class SluiceThrottlerStorage implements ThrottlerStorage {
  constructor(@Inject(SluiceEngine) private readonly engine: SluiceEngine) {}

  /**
   * ttl and blockDuration in ms, as the guard passes them; the record's times are in seconds. The
   * record's type is named through the interface: `@nestjs/throttler`'s index does not export it.
   */
  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): ReturnType<ThrottlerStorage['increment']> {
    const policy = this.policyFor(throttlerName, ttl, limit, blockDuration);
    const decision = await this.engine.consume(policy, key);
    const timeToExpire = toSeconds(decision.resetMs);
    if (decision.allowed) {
      const totalHits = decision.limit - decision.remaining;
      return { totalHits, timeToExpire, isBlocked: false, timeToBlockExpire: 0 };
    }
    const refused = { totalHits: limit + 1, timeToExpire, isBlocked: true };
    if (decision.reason === 'limit' && blockDuration > 0) {
      // This refusal started a block. Like the throttler's own storage, a caller let out of its
      // block counts afresh, even if the window that it filled has not ended yet.
      await this.engine.reset(policy, key);
      return { ...refused, timeToBlockExpire: toSeconds(blockDuration) };
    }
    return { ...refused, timeToBlockExpire: toSeconds(decision.retryAfterMs) };
  }

  /** The policy's name, after registering it if this instance has not seen it yet. */
  private policyFor(
    throttlerName: string,
    ttl: number,
    limit: number,
    blockDuration: number,
  ): string {
    const name = policyName(throttlerName, ttl, limit, blockDuration);
    if (this.engine.policies.get(name) !== undefined) return name;
    assertInteger('ttl', ttl, 1, MAX_PERIOD_MS);
    // A policy admits at most one request per microsecond, and a log holds at most so many.
    assertInteger('limit', limit, 1, Math.min(MAX_SLIDING_LOG_LIMIT, ttl * 1000));
    // 0 is the throttler's "refuse over the limit, but do not block".
    assertInteger('blockDuration', blockDuration, 0, MAX_PERIOD_MS);
    this.engine.policies.set({
      name,
      algorithm: 'sliding-log',
      limit,
      periodMs: ttl,
      key: THROTTLER_KEY_KIND,
      // Every block lasts blockDuration, so past offences need not be kept once it ends.
      penalty:
        blockDuration > 0 ? { afterViolations: 1, blockMs: blockDuration, forgetAfterMs: 0 } : null,
      description: `@nestjs/throttler ${JSON.stringify(throttlerName.slice(0, 200))}`,
    });
    return name;
  }
}

/**
 * Policy names are short and plain, and throttler names may hold anything: the readable part is
 * the name cleaned up, the digest tells every combination apart.
 */
function policyName(throttlerName: string, ttl: number, limit: number, blockDuration: number) {
  const readable = throttlerName.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 24);
  const digest = createHash('sha256')
    .update(JSON.stringify([throttlerName, ttl, limit, blockDuration]))
    .digest('hex')
    .slice(0, 16);
  return `throttler.${readable}.${digest}`;
}

function assertInteger(argument: string, value: number, min: number, max: number): void {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new RangeError(`${argument}: must be an integer from ${min} to ${max}, got ${value}`);
  }
}

function toSeconds(ms: number): number {
  return Math.ceil(ms / 1000);
}
