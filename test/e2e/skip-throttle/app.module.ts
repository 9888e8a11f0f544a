import { Controller, Get, UseGuards, type ModuleMetadata } from '@nestjs/common';
import {
  SkipThrottle,
  SluiceGuard,
  SluiceModule,
  Throttle,
  type SluiceModuleOptions,
} from '@sluice/nest';

const ONE_A_MINUTE = { algorithm: 'sliding-log', limit: 1, periodMs: 60_000, key: 'ip' } as const;

@Controller('throttled')
@UseGuards(SluiceGuard)
@Throttle('one-a-minute', ONE_A_MINUTE)
export class ThrottledController {
  @Get('limited')
  limited(): string {
    return 'limited';
  }

  @Get('health')
  @SkipThrottle()
  health(): string {
    return 'healthy';
  }
}

@Controller('open')
@UseGuards(SluiceGuard)
@SkipThrottle()
export class OpenController {
  @Get('skipped')
  @Throttle('one-a-minute')
  skipped(): string {
    return 'skipped';
  }

  @Get('re-enabled')
  @Throttle('one-a-minute')
  @SkipThrottle(false)
  reEnabled(): string {
    return 're-enabled';
  }
}

export function skipThrottleApp(options: SluiceModuleOptions): ModuleMetadata {
  return {
    imports: [SluiceModule.forRoot(options)],
    controllers: [ThrottledController, OpenController],
  };
}
