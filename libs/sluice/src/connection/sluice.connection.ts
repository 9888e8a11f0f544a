import { systemClock, type Clock } from '../clock/clock.js';
import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { Cluster, Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { CircuitBreaker, type BreakerState } from '../store/circuit.breaker.js';
import type { EventualStore } from '../store/eventual.store.js';
import { MemoryStore } from '../store/memory.store.js';
import type { RedisStore } from '../store/redis.store.js';
import { decisionStores } from '../store/store.factory.js';
import type { SluiceStore } from '../store/store.types.js';
import type { SluiceModuleOptions } from '../config/sluice-options.interface.js';
import { loadOptionalPeer } from '../peers/optional-peer.loader.js';
import { assertPeerVersions } from '../peers/peer.versions.js';
import { assertRedisServer } from '../peers/redis-server.check.js';
import { fromNodeRedis, isNodeRedis } from '../store/node-redis.client.js';

const DEFAULT_TIMEOUT_MS = 100;
/** How long a read an operator waits on may take (readRedis). */
const READ_TIMEOUT_MS = 2_000;
/** How long the start waits for a first connection before going on without Redis. */
const FIRST_CONNECT_WAIT_MS = 2_000;

/** The store decisions run in, and the Redis connection the module opened for it, if any. */
export class SluiceConnection implements OnApplicationShutdown {
  private static readonly logger = new Logger('Sluice');

  private constructor(
    readonly store: SluiceStore,
    /** The policy bus, the penalty stream, the statistics and the admin's reads use this one. */
    readonly redis: Redis | Cluster | undefined,
    /** The store's decisions go over this one: `redis` itself for a client passed in. */
    readonly decisionRedis: Redis | Cluster | undefined,
    private readonly owned: boolean,
    /** Absent with the in-memory store. */
    readonly breaker?: CircuitBreaker,
    /** Decides the policies of `consistency: 'eventual'`; absent with the in-memory store. */
    readonly eventual?: EventualStore,
  ) {}

  static async open(
    options: SluiceModuleOptions,
    clock: Clock = systemClock,
  ): Promise<SluiceConnection> {
    const { redis } = options;
    if (redis === undefined) {
      SluiceConnection.logger.log(
        'No redis configured: using the in-memory store, so limits hold per process only',
      );
      return new SluiceConnection(new MemoryStore({ clock }), undefined, undefined, false);
    }
    if (isNodeRedis(redis)) {
      // The app's node-redis client: decisions, the bus, the stream and the stats all go through
      // it and the connections it duplicates (docs/guide.md, "The Redis connection").
      const client = fromNodeRedis(redis);
      await assertRedisServer(client);
      return SluiceConnection.over(client, client, false, options, clock);
    }
    if (isClient(redis)) {
      assertPeerVersions(['ioredis']);
      warnOfReplays(redis);
      await assertRedisServer(redis);
      return SluiceConnection.over(redis, redis, false, options, clock);
    }
    const { Redis } = await loadIoredis();
    // Fail fast rather than queue: a request must not wait for a reconnect, and a command that
    // may have run must not be sent again (it would count twice).
    const settings = {
      commandTimeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      enableOfflineQueue: false,
      autoResendUnfulfilledCommands: false,
      maxRetriesPerRequest: 0,
    };
    const client =
      typeof redis === 'string' ? new Redis(redis, settings) : new Redis({ ...redis, ...settings });
    // Decisions get a connection of their own without ioredis' commandTimeout: the store times
    // them out itself, without failing a reply that came while the app held the event loop.
    const decisionClient = client.duplicate({ commandTimeout: undefined });
    for (const each of [client, decisionClient]) each.on('error', reportConnectionError);
    await firstConnection([client, decisionClient]);
    try {
      await assertRedisServer(client);
    } catch (error) {
      for (const each of [client, decisionClient]) each.disconnect();
      throw error;
    }
    return SluiceConnection.over(client, decisionClient, true, options, clock);
  }

  get breakerState(): BreakerState | 'none' {
    return this.breaker?.state ?? 'none';
  }

  private static over(
    client: Redis | Cluster,
    decisionClient: Redis | Cluster,
    owned: boolean,
    options: SluiceModuleOptions,
    clock: Clock,
  ): SluiceConnection {
    const breaker = new CircuitBreaker({
      ...options.breaker,
      clock,
      onStateChange: (state) => {
        reportBreaker(state);
        if (state === 'open' && owned) [client, decisionClient].forEach(resetConnection);
      },
    });
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const { eventual, redis } = decisionStores(decisionClient, breaker, {
      timeoutMs,
      scripting: options.scripting ?? 'auto',
      ...(options.batch !== undefined ? { batch: options.batch } : {}),
    });
    void prepareScripts(redis);
    return new SluiceConnection(eventual, client, decisionClient, owned, breaker, eventual);
  }

  private reader: Redis | Cluster | undefined;

  /**
   * The connection for reads an operator waits on (the admin's charts and identifier lists): the
   * same Redis, opened on first use, with READ_TIMEOUT_MS instead of the decisions' `timeoutMs`,
   * so a Redis that is only slow under load answers them rather than a 503. Absent in memory.
   */
  get readRedis(): Redis | Cluster | undefined {
    if (this.redis === undefined) return undefined;
    if (this.reader === undefined) {
      const client = this.redis;
      // A read counts nothing, so it may wait for the connection to open rather than fail.
      this.reader =
        'nodes' in client
          ? client.duplicate(undefined, {
              enableOfflineQueue: true,
              redisOptions: { ...client.options.redisOptions, commandTimeout: READ_TIMEOUT_MS },
            })
          : client.duplicate({ commandTimeout: READ_TIMEOUT_MS, enableOfflineQueue: true });
      this.reader.on('error', reportConnectionError);
    }
    return this.reader;
  }

  async onApplicationShutdown(): Promise<void> {
    // What eventual policies admitted here since the last sync is counted before Redis goes.
    await this.eventual?.close().catch(() => undefined);
    const reader = this.reader;
    if (reader !== undefined && reader.status !== 'end') {
      await reader.quit().catch(() => reader.disconnect());
    }
    if (!this.owned) return;
    await Promise.all(
      [this.redis, this.decisionRedis].map(async (client) => {
        if (client !== undefined && client.status !== 'end') {
          await client.quit().catch(() => client.disconnect());
        }
      }),
    );
  }
}

/**
 * Loads the Lua at start, so the first requests do not wait for it, and says how it runs. A
 * failure is not the start's: the first call loads it again (RedisStore).
 */
async function prepareScripts(store: RedisStore): Promise<void> {
  try {
    const mode = await store.prepare();
    if (mode === 'eval') {
      new Logger('Sluice').log(
        'Redis runs no functions for this connection: decisions go through EVALSHA',
      );
    }
  } catch {
    // Redis is away or refuses the load; the first decision tries again and reports it.
  }
}

/** Gives a starting instance a moment to connect; without Redis it starts all the same. */
async function firstConnection(clients: Redis[]): Promise<void> {
  const stopListening: Array<() => void> = [];
  // Not events.once: it rejects on the first 'error', and a refused connection emits one at once.
  const ready = clients.map((client) =>
    client.status === 'ready'
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          client.once('ready', resolve);
          stopListening.push(() => client.off('ready', resolve));
        }),
  );
  const connected = await Promise.race([
    Promise.all(ready).then(() => true),
    sleep(FIRST_CONNECT_WAIT_MS, false, { ref: false }),
  ]);
  for (const stop of stopListening) stop();
  if (!connected) {
    new Logger('Sluice').error(
      `REDIS IS UNREACHABLE at start: requests are decided by each policy's onStoreError and the policies are this instance's code defaults until it connects (it keeps trying)`,
    );
  }
}

/**
 * Calls that timed out may still wait in a stalled server's or network's buffers, and would run
 * whenever those drain, long after their requests were decided by onStoreError; and a connection
 * that died silently would be kept until TCP gives up, minutes later. A reset (RST, not FIN)
 * drops what is still in flight, and ioredis connects afresh.
 */
function resetConnection(client: Redis | Cluster): void {
  if ('nodes' in client || client.status !== 'ready') return;
  const socket = client.stream;
  try {
    socket.resetAndDestroy();
  } catch {
    // Only a TCP socket can be reset; a TLS or Unix socket is closed instead.
    socket.destroy();
  }
}

function reportBreaker(state: BreakerState): void {
  const logger = new Logger('Sluice');
  if (state === 'open')
    logger.error('Redis keeps failing: circuit breaker open, deciding by onStoreError');
  else if (state === 'closed') logger.log('Redis answers again: circuit breaker closed');
}

const ERROR_REPORT_EVERY_MS = 10_000;
let lastErrorReport = 0;

/** ioredis emits an error on every failed reconnect; one line every few seconds is enough. */
function reportConnectionError(error: Error): void {
  const now = Date.now();
  if (now - lastErrorReport < ERROR_REPORT_EVERY_MS) return;
  lastErrorReport = now;
  new Logger('Sluice').warn(`Redis connection: ${error.message}`);
}

/**
 * A client passed in keeps its own settings; those under which ioredis sends a command again after
 * its connection closed can run a decision twice, so each is named in one warning at start.
 */
function warnOfReplays(client: Redis | Cluster): void {
  const isCluster = 'nodes' in client;
  const nodeOptions = isCluster ? (client.options.redisOptions ?? {}) : client.options;
  const needed: string[] = [];
  if (isCluster && (client.options.retryDelayOnFailover ?? 0) > 0) {
    needed.push('retryDelayOnFailover: 0');
  }
  if (nodeOptions.autoResendUnfulfilledCommands !== false) {
    needed.push(`${isCluster ? 'redisOptions.' : ''}autoResendUnfulfilledCommands: false`);
  }
  if (needed.length === 0) return;
  new Logger('Sluice').warn(
    `The Redis client passed in may send a decision again after it ran, counting it twice: set ${needed.join(' and ')} (see "The Redis connection" in the guide)`,
  );
}

function isClient(redis: NonNullable<SluiceModuleOptions['redis']>): redis is Redis | Cluster {
  return typeof redis === 'object' && 'status' in redis && typeof redis.fcall === 'function';
}

function loadIoredis(): Promise<{ Redis: typeof Redis }> {
  return loadOptionalPeer('ioredis', 'SluiceModule options.redis', () => import('ioredis'));
}
