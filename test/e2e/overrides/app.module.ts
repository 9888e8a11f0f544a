import { Controller, Get, UseGuards, type ModuleMetadata } from '@nestjs/common';
import { SluiceGuard, SluiceModule, Throttle, type SluiceModuleOptions } from '@sluice/nest';

export const POLICY_LIMIT = 3;
export const VIP_LIMIT = 10;

@Controller()
@UseGuards(SluiceGuard)
export class PlanController {
  @Get('search')
  @Throttle('search')
  search(): string {
    return 'results';
  }
}

export function overridesApp(
  options: SluiceModuleOptions,
  policies?: SluiceModuleOptions['policies'],
): ModuleMetadata {
  return {
    imports: [
      SluiceModule.forRoot({
        ...options,
        policies: policies ?? [
          {
            name: 'search',
            // A sliding log: no window boundary can fall inside a test and reset the count.
            algorithm: 'sliding-log',
            limit: POLICY_LIMIT,
            periodMs: 60_000,
            key: 'header:x-user',
            overrides: [
              { identifier: 'vip', limit: VIP_LIMIT },
              { identifier: 'banned', limit: 0 },
              { identifier: 'staff', unlimited: true },
            ],
          },
        ],
      }),
    ],
    controllers: [PlanController],
  };
}
