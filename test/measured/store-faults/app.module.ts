import { Controller, Get, UseGuards, type ModuleMetadata } from '@nestjs/common';
import {
  SluiceGuard,
  SluiceModule,
  Throttle,
  type SluiceModuleOptions,
} from '@sluice/nest/internals';
import { MAX_PERIOD_MS } from '@sluice/nest/src/policy/policy.schema.js';

/** Never reached by the load: every request Redis decides is admitted and counted. */
export const OPEN_LIMIT = 1_000_000;
/** The local policy's limit in Redis; each of two instances gets half while Redis is away. */
export const LOCAL_LIMIT = 40;

// A fixed window a year long: no window ends during a test, so a count is every request since.
const counted = {
  algorithm: 'fixed-window',
  periodMs: MAX_PERIOD_MS,
  key: 'header:x-client',
} as const;

@Controller()
@UseGuards(SluiceGuard)
export class FaultsController {
  @Get('allow')
  @Throttle('allow', { ...counted, limit: OPEN_LIMIT, onStoreError: 'allow' })
  allow(): string {
    return 'passed';
  }

  @Get('deny')
  @Throttle('deny', { ...counted, limit: OPEN_LIMIT, onStoreError: 'deny' })
  deny(): string {
    return 'passed';
  }

  @Get('local')
  @Throttle('local', { ...counted, limit: LOCAL_LIMIT, onStoreError: 'local' })
  local(): string {
    return 'passed';
  }
}

export const ROUTES = ['allow', 'deny', 'local'] as const;
export type FaultRoute = (typeof ROUTES)[number];

export function storeFaultsApp(options: SluiceModuleOptions): ModuleMetadata {
  return {
    imports: [SluiceModule.forRoot({ heartbeatIntervalMs: 200, syncIntervalMs: 1000, ...options })],
    controllers: [FaultsController],
  };
}
