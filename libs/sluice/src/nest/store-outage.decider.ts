import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Clock } from '../clock/clock.js';
import { refusalWithoutStore, summarize, type Decision } from '../engine/decision.js';
import type { ConsumeOptions } from '../engine/engine.types.js';
import type { Policy } from '../policy/policy.types.js';
import { LocalFallback } from './local.fallback.js';
import { SLUICE_CLOCK } from '../config/sluice.tokens.js';
import { ThrottledLogger } from '../logging/throttled.logger.js';

const STORE_ERROR_RETRY_MS = 1000;
const STORE_ERROR_LOG_EVERY_MS = 10_000;

/**
 * Decides while the store fails: each policy's onStoreError says what its requests get
 * meanwhile — a pass, a refusal, or a decision in this process on the instance's share of the
 * limit (LocalFallback). The failure is logged at most once every 10 s.
 */
@Injectable()
export class StoreOutageDecider {
  private readonly logger: ThrottledLogger;

  constructor(
    @Inject(LocalFallback) private readonly local: LocalFallback,
    @Inject(SLUICE_CLOCK) clock: Clock,
  ) {
    this.logger = new ThrottledLogger(new Logger('Sluice'), STORE_ERROR_LOG_EVERY_MS, clock);
  }

  async decide(
    policies: readonly Policy[],
    identifier: string,
    options: ConsumeOptions,
    error: unknown,
  ): Promise<Decision> {
    this.logger.error(`Store unavailable, deciding by onStoreError: ${String(error)}`);
    const local = policies.filter((policy) => policy.onStoreError === 'local');
    const localDecision =
      local.length > 0 ? await this.local.consume(local, identifier, options) : undefined;
    const decisions = policies.map(
      (policy) =>
        localDecision?.policies.find((part) => part.policy === policy.name) ??
        (policy.onStoreError === 'deny' && policy.mode === 'enforce'
          ? refusalWithoutStore(policy, 'store-error', STORE_ERROR_RETRY_MS)
          : { ...refusalWithoutStore(policy, 'store-error', 0), allowed: true }),
    );
    return summarize(
      decisions,
      decisions.every((decision) => decision.allowed),
    );
  }

  /**
   * Gives back, in this process, what `policies` with onStoreError 'local' charged here while the
   * store failed; false when none of them decides locally, so the store's failure stands.
   */
  async refund(
    policies: readonly Policy[],
    identifier: string,
    options: ConsumeOptions,
  ): Promise<boolean> {
    const local = policies.filter((policy) => policy.onStoreError === 'local');
    if (local.length === 0) return false;
    await this.local.refund(local, identifier, options);
    return true;
  }
}
