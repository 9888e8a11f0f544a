import { Controller, Get, Injectable, UseGuards, type ModuleMetadata } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { SluiceGuard, SluiceModule, Throttle, type SluiceModuleOptions } from '@sluice/nest';

export const LIMIT = 10;
export const PERIOD_MS = 1_000;
const MAX_DELAY_MS = 1_000;
/** A slow queue, so a burst is decided well within one interval even on a loaded machine. */
export const SLOW_QUEUE = { limit: 2, periodMs: 1_000, maxDelayMs: 1_000 } as const;

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

  @Get('archive')
  @Throttle('archive')
  archive(): string {
    this.entries.times.push(performance.now());
    return 'archived';
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
          { name: 'archive', algorithm: 'leaky-bucket', ...SLOW_QUEUE, key: 'ip' },
        ],
      }),
    ],
    controllers: [UploadController],
    providers: [HandlerEntries],
  };
}
