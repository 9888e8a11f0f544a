import { Controller, Get, UseGuards, type ModuleMetadata } from '@nestjs/common';
import { SluiceGuard, SluiceModule, Throttle, type SluiceModuleOptions } from '@sluice/nest';

/** Short periods: every key an identifier leaves in Redis expires within seconds. */
const PERIOD_MS = 1_000;
const shared = { limit: 5, periodMs: PERIOD_MS, key: 'header:x-client' } as const;

/** One route per algorithm, and one whose offenders are blocked (Redis and the block cache). */
@Controller()
@UseGuards(SluiceGuard)
export class SoakController {
  @Get('window')
  @Throttle('window', { ...shared, algorithm: 'fixed-window' })
  window(): string {
    return 'ok';
  }

  @Get('log')
  @Throttle('log', { ...shared, algorithm: 'sliding-log' })
  log(): string {
    return 'ok';
  }

  @Get('bucket')
  @Throttle('bucket', { ...shared, algorithm: 'token-bucket', burst: 5 })
  bucket(): string {
    return 'ok';
  }

  @Get('gcra')
  @Throttle('gcra', { ...shared, algorithm: 'gcra' })
  gcra(): string {
    return 'ok';
  }

  @Get('blocked')
  @Throttle('blocked', {
    ...shared,
    algorithm: 'fixed-window',
    limit: 1,
    penalty: { afterViolations: 1, blockMs: PERIOD_MS, forgetAfterMs: 2 * PERIOD_MS },
  })
  blocked(): string {
    return 'ok';
  }
}

export const SOAK_ROUTES = ['window', 'log', 'bucket', 'gcra', 'blocked'] as const;

export function soakApp(options: SluiceModuleOptions): ModuleMetadata {
  return { imports: [SluiceModule.forRoot(options)], controllers: [SoakController] };
}
