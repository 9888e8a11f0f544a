import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerGuard, ThrottlerModule, type ThrottlerOptions } from '@nestjs/throttler';
import { Redis } from 'ioredis';
import { BLOCK_MS, UNREACHABLE_LIMIT, UNREACHABLE_PERIOD_MS } from '../bench.constants.js';
import type { Contender } from '../contenders.js';
import type { Limiter } from './limiter.types.js';
import { trackedKey } from './tracked-key.js';

/** @nestjs/throttler's own guard, on its in-memory storage or on @nest-lab's Redis storage. */
export function throttlerLimiter(contender: Contender, redisUrl: string): Limiter {
  // Named after the contender: the name is part of every key, so contenders never share state.
  const name = contender.id;
  const throttler: ThrottlerOptions = contender.blocked
    ? { name, limit: 1, ttl: BLOCK_MS, blockDuration: BLOCK_MS }
    : { name, limit: UNREACHABLE_LIMIT, ttl: UNREACHABLE_PERIOD_MS };
  const storage =
    contender.storage === 'redis'
      ? new ThrottlerStorageRedisService(new Redis(redisUrl))
      : undefined;
  return {
    metadata: {
      imports: [
        ThrottlerModule.forRoot({
          throttlers: [throttler],
          getTracker: (request) => trackedKey(request as Parameters<typeof trackedKey>[0]),
          ...(storage !== undefined ? { storage } : {}),
        }),
      ],
      providers: [{ provide: APP_GUARD, useClass: ThrottlerGuard }],
    },
  };
}
