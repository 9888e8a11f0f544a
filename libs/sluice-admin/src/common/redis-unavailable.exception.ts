import { ServiceUnavailableException } from '@nestjs/common';

/** 503 for reads and writes that need Redis (counters, heartbeats) when it does not answer. */
export class RedisUnavailableException extends ServiceUnavailableException {
  constructor(what: string, error: unknown) {
    super({
      statusCode: 503,
      error: 'Service Unavailable',
      message: `Redis is unreachable, so ${what}: ${(error as Error).message}`,
    });
  }
}
