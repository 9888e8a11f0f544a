import { Controller, Get, Injectable, UseGuards, type ModuleMetadata } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { SluiceGuard, SluiceModule, Throttle, type SluiceModuleOptions } from '@sluice/nest';

export const LIMIT = 10;
export const PERIOD_MS = 1_000;
export const MAX_DELAY_MS = 1_000;

/** When each request reached the handler, performance.now() ms. */
@Injectable()
export class HandlerEntries {
  readonly times: number[] = [];
}

@Controller()
@UseGuards(SluiceGuard)
export class UploadController {
  constructor(private readonly entries: HandlerEntries) {}

  @Get('upload')
  @Throttle('upload')
  upload(): string {
    this.entries.times.push(performance.now());
    return 'stored';
  }
}

export function shapingApp(options: SluiceModuleOptions): ModuleMetadata {
  return {
    imports: [
      SluiceModule.forRoot({
        ...options,
        policies: [
          {
            name: 'upload',
            algorithm: 'leaky-bucket',
            limit: LIMIT,
            periodMs: PERIOD_MS,
            maxDelayMs: MAX_DELAY_MS,
            key: 'ip',
          },
        ],
      }),
    ],
    controllers: [UploadController],
    providers: [HandlerEntries],
  };
}
