import { Controller, Get, UseGuards, type ModuleMetadata } from '@nestjs/common';
import { SluiceGuard, SluiceModule, Throttle, type SluiceModuleOptions } from '@sluice/nest';

export const LIMIT = 2;
/**
 * An hour, for the window as for the block: a window boundary (on the hour) is unlikely to fall
 * inside a test, and a refusal's wait for the window never exceeds the block's.
 */
const HOUR_MS = 3_600_000;
export const BLOCK_MS = HOUR_MS;

@Controller()
@UseGuards(SluiceGuard)
export class LoginController {
  @Get('login')
  @Throttle('login')
  login(): string {
    return 'welcome';
  }
}

export function penaltiesApp(options: SluiceModuleOptions): ModuleMetadata {
  return {
    imports: [
      SluiceModule.forRoot({
        ...options,
        policies: [
          {
            name: 'login',
            algorithm: 'sliding-log',
            limit: LIMIT,
            periodMs: HOUR_MS,
            key: 'header:x-user',
            penalty: {
              afterViolations: 2,
              blockMs: BLOCK_MS,
              escalation: 2,
              maxBlockMs: 24 * HOUR_MS,
            },
          },
        ],
      }),
    ],
    controllers: [LoginController],
  };
}
