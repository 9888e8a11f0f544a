import type { ContenderEnv } from '../contender.env.js';
import { calibrationLimiter } from './calibration.limiter.js';
import type { Limiter } from './limiter.types.js';
import { rateLimiterFlexibleLimiter } from './rate-limiter-flexible.limiter.js';
import { defaultRule, sluiceLimiter } from './sluice.limiter.js';
import { throttlerLimiter } from './throttler.limiter.js';

/** The limiter a contender adds to the tiny app. */
export function limiterFor({ contender, redisUrl, rule }: ContenderEnv): Limiter {
  switch (contender.family) {
    case 'bare':
      return { metadata: {} };
    case 'calibration':
      return calibrationLimiter(contender.spendUs ?? 0);
    case 'throttler':
      return throttlerLimiter(contender, redisUrl);
    case 'rate-limiter-flexible':
      return rateLimiterFlexibleLimiter(contender, redisUrl);
    case 'sluice':
      return sluiceLimiter(
        redisUrl,
        rule ?? defaultRule(contender),
        contender.id,
        contender.evalsha === true ? 'eval' : 'auto',
        contender.batch,
        contender,
      );
  }
}
