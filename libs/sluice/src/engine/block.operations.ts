import { ceilDiv } from '../algorithms/integer-math.js';
import type { PolicyOutcome, SluiceStore } from '../store/store.types.js';
import type { CallTarget } from './call.target.js';
import type { PolicyPricing } from './policy.pricing.js';
import { runOn } from './store.calls.js';

/** The longest manual block: a year. */
const MAX_BLOCK_MS = 365 * 86_400_000;

/**
 * Blocks and penalties set by hand, and counters forgotten: what acts on an identifier's key
 * rather than decides a request (docs/operations.md, "Blocked users and the penalty history").
 */
export class BlockOperations {
  constructor(
    private readonly store: SluiceStore,
    private readonly pricing: PolicyPricing,
  ) {}

  /** Blocks the target's identifier for durationMs, whatever its counters say. */
  async block(target: CallTarget, durationMs: number): Promise<{ untilMs: number }> {
    if (!Number.isSafeInteger(durationMs) || durationMs < 1 || durationMs > MAX_BLOCK_MS) {
      throw new RangeError(
        `durationMs: must be an integer from 1 to ${MAX_BLOCK_MS}, got ${durationMs}`,
      );
    }
    const outcomes = await runOn(this.store, 'block', target, this.specs(target), { durationMs });
    return { untilMs: ceilDiv((outcomes[0] as PolicyOutcome).blockedUntil, 1000) };
  }

  /** Lifts a block; when it would have ended, or null when there was none. */
  async lift(target: CallTarget): Promise<{ untilMs: number } | null> {
    const [outcome] = await runOn(this.store, 'unblock', target, this.specs(target));
    const blockedUntil = outcome?.blockedUntil ?? 0;
    return blockedUntil > 0 ? { untilMs: ceilDiv(blockedUntil, 1000) } : null;
  }

  /** Forgets the offence level and the rejections counted towards the next block. */
  async forget(target: CallTarget): Promise<void> {
    await runOn(this.store, 'forget', target, this.specs(target));
  }

  /** Forgets the counters (and their candidates'); blocks and offences stay. */
  async reset(target: CallTarget): Promise<void> {
    await runOn(this.store, 'reset', target, this.specs(target));
  }

  private specs(target: CallTarget) {
    return this.pricing.specs(target, {});
  }
}
