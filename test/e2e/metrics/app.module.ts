import { Controller, Get, UseGuards, type ModuleMetadata } from '@nestjs/common';
import { SluiceGuard, SluiceModule, Throttle, type SluiceModuleExtras } from '@sluice/nest';

/** Two replies a minute per X-User; a refusal blocks for a minute. */
@Controller()
@UseGuards(SluiceGuard)
export class ReplyController {
  @Get('reply')
  @Throttle('reply', {
    algorithm: 'sliding-log',
    limit: 2,
    periodMs: 60_000,
    key: 'header:x-user',
    penalty: { afterViolations: 1, blockMs: 60_000 },
  })
  reply(): string {
    return 'replied';
  }
}

export function metricsApp(
  options: { redisUrl: string; prefix: string },
  metrics: SluiceModuleExtras['metrics'],
): ModuleMetadata {
  return {
    imports: [SluiceModule.forRoot({ redis: options.redisUrl, prefix: options.prefix, metrics })],
    controllers: [ReplyController],
  };
}
