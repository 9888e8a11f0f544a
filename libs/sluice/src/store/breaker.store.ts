import type { CircuitBreaker } from './circuit.breaker.js';
import type { SluiceStore, StoreCall, StoreResult } from './store.types.js';

/** A store whose calls pass through a circuit breaker. */
export class BreakerStore implements SluiceStore {
  constructor(
    private readonly inner: SluiceStore,
    readonly breaker: CircuitBreaker,
  ) {}

  run(call: StoreCall): Promise<StoreResult> {
    // Taking a grant back keeps Redis and the audit equal: it is sent even while the breaker is open.
    if (call.undo === true) return this.inner.run(call);
    const refusal = this.breaker.refusal();
    if (refusal !== undefined) return Promise.reject(refusal);
    // A store that reports each call's end itself spares a promise per call.
    return this.inner.runWatched !== undefined
      ? this.inner.runWatched(call, this.breaker.watcher)
      : this.breaker.watch(this.inner.run(call));
  }
}
