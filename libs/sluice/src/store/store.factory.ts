import type { Cluster, Redis } from 'ioredis';
import { BreakerStore } from './breaker.store.js';
import type { CircuitBreaker } from './circuit.breaker.js';
import { EventualStore } from './eventual.store.js';
import { RedisStore, type RedisStoreOptions } from './redis.store.js';

/** The stores a module's decisions go through on Redis, outermost first. */
export interface DecisionStores {
  /** What the engine calls: decides `consistency: 'eventual'` policies itself, passes the rest. */
  eventual: EventualStore;
  /** Where every call that reaches Redis is sent. */
  redis: RedisStore;
}

/**
 * The chain every decision on Redis goes through (docs/architecture.md, "One request, hop by
 * hop"): EventualStore, which decides eventual policies from the instance's own view and syncs
 * them; BreakerStore, which stops calling a Redis that keeps failing; RedisStore, which batches
 * the calls and runs the Lua. The module builds it here and nowhere else.
 */
export function decisionStores(
  client: Redis | Cluster,
  breaker: CircuitBreaker,
  options: RedisStoreOptions,
): DecisionStores {
  const redis = new RedisStore(client, options);
  return { eventual: new EventualStore(new BreakerStore(redis, breaker)), redis };
}
