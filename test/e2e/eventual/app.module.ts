import { Controller, Get, UseGuards, type ModuleMetadata } from '@nestjs/common';
import {
  SluiceGuard,
  SluiceModule,
  Throttle,
  type PolicyInput,
  type SluiceModuleOptions,
} from '@sluice/nest';

export const LIMIT = 5;
export const BLOCK_MS = 600_000;

const eventual = {
  algorithm: 'fixed-window',
  periodMs: 3_600_000,
  limit: LIMIT,
  key: 'ip',
  consistency: 'eventual',
  // Long: the test sends what is unsent itself, so no interval passes unseen.
  syncMs: 60_000,
} as const;

export const POLICIES: PolicyInput[] = [
  { name: 'feed', ...eventual },
  {
    name: 'login',
    ...eventual,
    penalty: { afterViolations: 1, blockMs: BLOCK_MS },
  },
];

@Controller()
@UseGuards(SluiceGuard)
export class EventualController {
  @Get('feed')
  @Throttle('feed')
  feed(): string {
    return 'feed';
  }

  @Get('login')
  @Throttle('login')
  login(): string {
    return 'login';
  }
}

export function eventualApp(options: Omit<SluiceModuleOptions, 'policies'>): ModuleMetadata {
  return {
    imports: [SluiceModule.forRoot({ ...options, policies: POLICIES })],
    controllers: [EventualController],
  };
}
