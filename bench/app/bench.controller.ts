import { Controller, Get } from '@nestjs/common';
import { Throttle } from '../../libs/sluice/src/internals.js';
import { POLICY_BY_IP, POLICY_BY_USER, ROUTES } from './bench.constants.js';

const BODY = { ok: true, service: 'bench' };

/**
 * The tiny app every contender serves. The @Throttle marks are Sluice's metadata: inert unless
 * Sluice's guard runs; the other limiters guard every route globally.
 */
@Controller()
export class BenchController {
  @Get(ROUTES.ip)
  @Throttle(POLICY_BY_IP)
  byIp(): typeof BODY {
    return BODY;
  }

  @Get(ROUTES.users)
  @Throttle(POLICY_BY_USER)
  byUser(): typeof BODY {
    return BODY;
  }
}
