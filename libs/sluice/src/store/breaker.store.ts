import type { CircuitBreaker } from './circuit.breaker.js';
import type { SluiceStore, StoreCall, StoreResult } from './store.types.js';

/** A store whose calls pass through a circuit breaker. */
export class BreakerStore implements SluiceStore {
  constructor(
    private readonly inner: SluiceStore,
    readonly breaker: CircuitBreaker,
  ) {}

  run(call: StoreCall): Promise<StoreResult> {
    return this.breaker.run(() => this.inner.run(call));
  }
}
