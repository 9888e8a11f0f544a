import { Controller, Get, type ModuleMetadata } from '@nestjs/common';
import { SluiceModule, Throttle, type SluiceModuleOptions } from '@sluice/nest';

/** A block that outlasts the test: only lifting it lets the identifier in again. */
export const BLOCK_MS = 600_000;

@Controller()
export class LoginController {
  @Get('login')
  @Throttle('login')
  login(): string {
    return 'welcome';
  }
}

export function unblockApp(options: SluiceModuleOptions): ModuleMetadata {
  return {
    imports: [
      SluiceModule.forRoot({
        ...options,
        global: true,
        policies: [
          {
            name: 'login',
            algorithm: 'fixed-window',
            // Room for each instance's one request after the lifting.
            limit: 3,
            periodMs: 3_600_000,
            key: 'header:x-user',
            penalty: { afterViolations: 1, blockMs: BLOCK_MS, escalation: 1, maxBlockMs: BLOCK_MS },
          },
        ],
      }),
    ],
    controllers: [LoginController],
  };
}
