import type { ExecutionContext } from '@nestjs/common';
import type { TierOptions } from '../trackers/tier.resolver.js';
import type { Cluster, Redis, RedisOptions } from 'ioredis';
import type { NodeRedisClient, NodeRedisCluster } from '../store/node-redis.client.js';
import type { PolicyInput } from '../policy/policy.types.js';
import type { TrustProxy } from '../trackers/client-address.js';
import type { Tracker } from '../trackers/tracker.interface.js';

/** Which rate-limit headers guarded responses carry. */
export type HeaderStyle = 'draft' | 'legacy' | 'both' | false;

/** What SluiceModule.forRoot takes (docs/guide.md, configuration). */
export interface SluiceModuleOptions {
  /**
   * A redis:// URL, ioredis options, a connected ioredis `Redis` / `Cluster`, or a connected
   * node-redis (the `redis` package, 4 or 5) client or cluster. Absent: in-memory.
   */
  redis?: string | RedisOptions | Redis | Cluster | NodeRedisClient | NodeRedisCluster;
  /** Start of every Redis key. Default 'sluice'. */
  prefix?: string;
  /** Policies defined in code. */
  policies?: PolicyInput[];
  /** Named trackers, used by policies whose `key` is the tracker's name. */
  trackers?: Record<string, Tracker>;
  /** Default 'draft': the IETF RateLimit-Policy / RateLimit headers. */
  headers?: HeaderStyle;
  /** Which proxies may set X-Forwarded-For. Default false: the socket address counts. */
  trustProxy?: TrustProxy;
  /**
   * Requests no policy limits: `addresses` lists IP addresses and CIDR ranges (the client's
   * address as `trustProxy` finds it). They pass SluiceGuard undecided, before any store call,
   * and carry no rate-limit headers. Made for an app's end-to-end tests from a known address
   * (docs/guide.md, "Testing your app"). Default: none.
   */
  allow?: { addresses?: string[] };
  /**
   * How many leading bits name an IPv6 client under `ip` keys, 32 to 128. Default 64: one site,
   * since a host can take any address of its /64; 48 or 56 for providers that hand out those.
   */
  ipv6Prefix?: number;
  /**
   * Where a request's tier (its plan: `free`, `pro`) comes from, for policies with `tiers`
   * (docs/guide.md, tiers). An operator's override assigning a tier wins over it.
   */
  tiers?: TierOptions;
  /**
   * Report decisions to OpenTelemetry: metrics on the global meter provider and an event on the
   * request's active span (docs/operations.md, "OpenTelemetry"). Default: when the optional peer
   * `@opentelemetry/api` is installed; `false` turns it off, `true` fails the start without it.
   */
  openTelemetry?: boolean;
  /**
   * The units a response used, for policies with `usage` whose handler reported none: a function
   * of the response (its body's token count, a header of your own). Undefined: the policy's
   * `usage.header`, else the reservation stands (docs/guide.md, "Charges settled after the
   * response").
   */
  usageOf?: (policy: string, request: unknown, response: unknown) => number | undefined;
  /**
   * What a request costs under every policy it meets, when known before it runs (a GraphQL
   * query's complexity, a batch's size); undefined: each policy's `cost`. SluiceGuard's getCost
   * asks it; docs/guide.md, "GraphQL".
   */
  costOf?: (request: unknown, context: ExecutionContext) => number | undefined;
  /** How long a Redis command may take, ms. Default 100. */
  timeoutMs?: number;
  /**
   * How the Lua runs in Redis: 'function' (FUNCTION LOAD, FCALL), 'eval' (EVALSHA, for managed
   * services that forbid functions), or 'auto' (default): functions unless the server refuses
   * them, then EVALSHA.
   */
  scripting?: 'auto' | 'function' | 'eval';
  /**
   * How decisions share a round trip to Redis (docs/benchmarks.md, "Batch size and hold"): at
   * most `maxCalls` decisions per FCALL (default 64), and how long, in ms, decisions made while an
   * FCALL is out wait for its reply before going anyway (default 1; 0: each turn of the event loop
   * sends its own at once).
   */
  batch?: {
    /** Decisions per FCALL at most, 1 to 1000. Default 64. */
    maxCalls?: number;
    /** ms, 0 to 100: how long decisions wait for the FCALL already out. Default 1. */
    holdMs?: number;
  };
  /** When to stop sending calls to a failing Redis, and when to try again. */
  breaker?: {
    /** Consecutive failures that open the breaker. Default 5. */
    failureThreshold?: number;
    /** ms it stays open before one call probes Redis. Default 1000. */
    cooldownMs?: number;
  };
  /** How many blocked identifiers each instance remembers. Default 10000. */
  blockCacheSize?: number;
  /**
   * Each policy's traffic profile, how many requests each identifier makes per period
   * (docs/algorithms.md, "Traffic profiles"): `false` keeps none. `retentionHours` (1 to 2160,
   * default 168) is how long an hour of it is kept; `sampleBound` (100 to 100000, default 1000)
   * the most identifiers one window keeps before it keeps a sample; `replayRecords` (0 to
   * 1000000, default 200000) how many recent requests of the sampled identifiers each policy
   * keeps for replay (docs/algorithms.md, "Replay"), 0 none.
   */
  trafficProfile?:
    false | { retentionHours?: number; sampleBound?: number; replayRecords?: number };
  /**
   * On Fastify, refuse identifiers whose block this instance has cached in an onRequest hook,
   * before Nest's pipeline (guards, interceptors, exception filters do not see those requests).
   * Default true; false leaves every refusal to SluiceGuard.
   */
  refuseBlockedEarly?: boolean;
  /** How often the published policy version is checked, in case a notice was missed. Default 5000 ms. */
  syncIntervalMs?: number;
  /** How often this instance reports itself to the admin. Default 5000 ms. */
  heartbeatIntervalMs?: number;
}

/** Options fixed when the module is defined, beside forRoot's or forRootAsync's own. */
export interface SluiceModuleExtras {
  /** Register SluiceGuard as APP_GUARD, guarding every route. Default false. */
  global?: boolean;
  /**
   * Serve Prometheus metrics (needs the prom-client package): `true` at GET /metrics, or
   * `{ path }` elsewhere. Default off. The route has no authentication of its own.
   */
  metrics?: boolean | { path?: string };
}
