import { APP_GUARD } from '@nestjs/core';
import { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { BLOCK_MS, UNREACHABLE_LIMIT, UNREACHABLE_PERIOD_MS } from '../bench.constants.js';
import type { Contender } from '../contenders.js';
import type { Limiter } from './limiter.types.js';
import { RATE_LIMITER, RateLimiterFlexibleGuard } from './rate-limiter-flexible.guard.js';

/**
 * rate-limiter-flexible's RateLimiterRedis behind a global guard. Blocked: its own in-memory
 * block (inMemoryBlockOnConsumed), its counterpart to Sluice's block cache.
 */
export function rateLimiterFlexibleLimiter(contender: Contender, redisUrl: string): Limiter {
  const storeClient = new Redis(redisUrl);
  const options = contender.blocked
    ? {
        points: 1,
        duration: BLOCK_MS / 1000,
        inMemoryBlockOnConsumed: 2,
        inMemoryBlockDuration: BLOCK_MS / 1000,
      }
    : { points: UNREACHABLE_LIMIT, duration: UNREACHABLE_PERIOD_MS / 1000 };
  const limiter = new RateLimiterRedis({ storeClient, keyPrefix: contender.id, ...options });
  return {
    metadata: {
      providers: [
        { provide: RATE_LIMITER, useValue: limiter },
        { provide: APP_GUARD, useClass: RateLimiterFlexibleGuard },
      ],
    },
  };
}
