import { Controller, Get, UseGuards, type ModuleMetadata } from '@nestjs/common';
import { SluiceGuard, SluiceModule, Throttle, type SluiceModuleOptions } from '@sluice/nest';

/** The code default: 2 replies an hour per address. */
export const CODE_LIMIT = 2;

@Controller()
@UseGuards(SluiceGuard)
export class ReplyController {
  @Get('reply')
  @Throttle('reply', { algorithm: 'fixed-window', limit: CODE_LIMIT, periodMs: 3_600_000 })
  reply(): string {
    return 'posted';
  }
}

@Controller()
@UseGuards(SluiceGuard)
export class AdminOnlyController {
  /** Defined only by the published snapshot, never by code. */
  @Get('search')
  @Throttle('search')
  search(): string {
    return 'found';
  }
}

export function busApp(
  options: SluiceModuleOptions,
  controllers: ModuleMetadata['controllers'] = [ReplyController],
): ModuleMetadata {
  return {
    imports: [SluiceModule.forRoot({ syncIntervalMs: 200, heartbeatIntervalMs: 200, ...options })],
    controllers,
  };
}
