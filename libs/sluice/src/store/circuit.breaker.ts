import { systemClock, type Clock } from '../clock/clock.js';
import type { CallWatcher } from './store.types.js';

/** Refused without trying: the store failed repeatedly and the breaker is waiting to probe. */
export class CircuitOpenError extends Error {
  /** Always 'CircuitOpenError'. */
  override name = 'CircuitOpenError';
  constructor() {
    super(
      'Redis is failing: the circuit breaker is open, calls are not sent until a probe succeeds',
    );
  }
}

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the breaker. Default 5. */
  failureThreshold?: number;
  /** How long it stays open before one call probes the store. Default 1000 ms. */
  cooldownMs?: number;
  /** The time the cooldown is measured by. Default systemClock. */
  clock?: Clock;
  /** Told of every change of state. */
  onStateChange?: (state: BreakerState) => void;
}

/**
 * Stops sending calls to a store that keeps failing, so requests are decided by their policies'
 * onStoreError at once instead of each waiting out a timeout. After the cooldown one call probes;
 * its success closes the breaker, its failure opens it for another cooldown.
 */
export class CircuitBreaker {
  private current: BreakerState = 'closed';
  private failures = 0;
  private openedAt = 0;
  private readonly threshold: number;
  private readonly cooldownMs: number;
  private readonly clock: Clock;

  constructor(private readonly options: CircuitBreakerOptions = {}) {
    this.threshold = options.failureThreshold ?? 5;
    this.cooldownMs = options.cooldownMs ?? 1000;
    this.clock = options.clock ?? systemClock;
  }

  get state(): BreakerState {
    return this.current;
  }

  async run<T>(call: () => Promise<T>): Promise<T> {
    const refusal = this.refusal();
    if (refusal !== undefined) throw refusal;
    // A call that throws before it returns a promise counts as a failure too.
    return this.watch(new Promise<T>((resolve) => resolve(call())));
  }

  /**
   * As `run`, for a call already made once the breaker let it through (`refusal()` undefined):
   * the store's hot path, with no closure and no async step of its own.
   */
  watch<T>(reply: Promise<T>): Promise<T> {
    return reply.then(this.succeeded, this.failedWith);
  }

  /** `watch` for a store that reports each call's end itself (SluiceStore.runWatched). */
  readonly watcher: CallWatcher = {
    succeeded: () => {
      this.succeeded(undefined);
    },
    failed: () => {
      this.failed();
    },
  };

  /** Why a call may not be sent now; undefined when it may (half-open from here on, after a cooldown). */
  refusal(): CircuitOpenError | undefined {
    if (this.current === 'closed') return undefined;
    if (this.current === 'half-open') return new CircuitOpenError();
    if (this.clock() - this.openedAt < this.cooldownMs * 1000) return new CircuitOpenError();
    this.enter('half-open');
    return undefined;
  }

  private readonly succeeded = <T>(result: T): T => {
    this.failures = 0;
    if (this.current !== 'closed') this.enter('closed');
    return result;
  };

  private readonly failedWith = (error: unknown): never => {
    this.failed();
    throw error;
  };

  private failed(): void {
    this.failures += 1;
    if (this.current === 'half-open' || this.failures >= this.threshold) {
      this.openedAt = this.clock();
      if (this.current !== 'open') this.enter('open');
    }
  }

  private enter(state: BreakerState): void {
    this.current = state;
    this.options.onStateChange?.(state);
  }
}
