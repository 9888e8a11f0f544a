import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { Cluster, Redis } from 'ioredis';
import { MemoryStore } from '../store/memory.store.js';
import { RedisStore } from '../store/redis.store.js';
import type { SluiceStore } from '../store/store.types.js';
import type { SluiceModuleOptions } from './sluice-options.interface.js';

const DEFAULT_TIMEOUT_MS = 100;

/** The store decisions run in, and the Redis connection the module opened for it, if any. */
export class SluiceConnection implements OnApplicationShutdown {
  private static readonly logger = new Logger('Sluice');

  private constructor(
    readonly store: SluiceStore,
    readonly redis: Redis | Cluster | undefined,
    private readonly owned: boolean,
  ) {}

  static async open(options: SluiceModuleOptions): Promise<SluiceConnection> {
    const { redis } = options;
    if (redis === undefined) {
      SluiceConnection.logger.log(
        'No redis configured: using the in-memory store, so limits hold per process only',
      );
      return new SluiceConnection(new MemoryStore(), undefined, false);
    }
    if (isClient(redis)) return new SluiceConnection(new RedisStore(redis), redis, false);
    const { Redis } = await loadIoredis();
    const commandTimeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const client =
      typeof redis === 'string'
        ? new Redis(redis, { commandTimeout })
        : new Redis({ commandTimeout, ...redis });
    client.on('error', reportConnectionError);
    return new SluiceConnection(new RedisStore(client), client, true);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.owned && this.redis !== undefined && this.redis.status !== 'end') {
      await this.redis.quit().catch(() => this.redis?.disconnect());
    }
  }
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

function isClient(redis: NonNullable<SluiceModuleOptions['redis']>): redis is Redis | Cluster {
  return typeof redis === 'object' && 'status' in redis && typeof redis.fcall === 'function';
}

async function loadIoredis(): Promise<{ Redis: typeof Redis }> {
  try {
    const { Redis } = await import('ioredis');
    return { Redis };
  } catch {
    throw new Error(
      'SluiceModule: options.redis needs the ioredis package; install it with `npm install ioredis`',
    );
  }
}
