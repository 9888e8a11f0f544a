import {
  HttpException,
  HttpStatus,
  Inject,
  Injectable,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { trackedKey } from './tracked-key.js';

export const RATE_LIMITER = Symbol('RateLimiterRedis');

interface HeaderWriter {
  header(name: string, value: string): unknown;
}

/** The guard an app writes around rate-limiter-flexible, with the usual X-RateLimit-* headers. */
@Injectable()
export class RateLimiterFlexibleGuard implements CanActivate {
  constructor(@Inject(RATE_LIMITER) private readonly limiter: RateLimiterRedis) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const response = http.getResponse<HeaderWriter>();
    try {
      const result = await this.limiter.consume(trackedKey(http.getRequest()));
      this.writeHeaders(response, result);
      return true;
    } catch (refusal) {
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      this.writeHeaders(response, refusal);
      response.header('Retry-After', String(Math.ceil(refusal.msBeforeNext / 1000)));
      throw new HttpException('Too Many Requests', HttpStatus.TOO_MANY_REQUESTS);
    }
  }

  private writeHeaders(response: HeaderWriter, result: RateLimiterRes): void {
    response.header('X-RateLimit-Limit', String(this.limiter.points));
    response.header('X-RateLimit-Remaining', String(result.remainingPoints));
    response.header('X-RateLimit-Reset', String(Math.ceil(result.msBeforeNext / 1000)));
  }
}
