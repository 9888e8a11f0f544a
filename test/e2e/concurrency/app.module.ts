import { BadRequestException, Controller, Get, Query, type ModuleMetadata } from '@nestjs/common';
import { SluiceModule, Throttle, type SluiceModuleOptions } from '@sluice/nest';

@Controller()
export class ExportController {
  /** Answers after `ms` milliseconds: a slow export, at most 2 at once per API key. */
  @Get('export')
  @Throttle('exports-in-flight')
  async export(@Query('ms') ms = '0'): Promise<string> {
    const wait = Number(ms);
    if (!Number.isInteger(wait) || wait < 0 || wait > 10_000) {
      throw new BadRequestException('ms: must be an integer from 0 to 10000');
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
    return 'an export';
  }
}

export function concurrencyApp(options: SluiceModuleOptions): ModuleMetadata {
  return {
    imports: [
      SluiceModule.forRoot({
        ...options,
        global: true,
        policies: [
          {
            name: 'exports-in-flight',
            algorithm: 'concurrency',
            limit: 2,
            periodMs: 60_000,
            key: 'header:x-api-key',
          },
        ],
      }),
    ],
    controllers: [ExportController],
  };
}
