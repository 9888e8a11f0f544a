import { Controller, Get, UseGuards, type ModuleMetadata } from '@nestjs/common';
import { SluiceGuard, SluiceModule, Throttle, type SluiceModuleOptions } from '@sluice/nest';

export const CRAWLER_LIMIT = 2;
export const PEOPLE_LIMIT = 4;

@Controller()
@UseGuards(SluiceGuard)
export class NewsController {
  @Get('news')
  @Throttle(['crawler', 'people'])
  news(): string {
    return 'news';
  }
}

export function userAgentApp(options: SluiceModuleOptions): ModuleMetadata {
  // A sliding log: no window boundary can fall inside a test and reset the counts.
  const perMinute = { algorithm: 'sliding-log', periodMs: 60_000, key: 'ip' } as const;
  return {
    imports: [
      SluiceModule.forRoot({
        ...options,
        policies: [
          {
            ...perMinute,
            name: 'crawler',
            limit: CRAWLER_LIMIT,
            match: { userAgent: 'bot|spider|crawl' },
          },
          { ...perMinute, name: 'people', limit: PEOPLE_LIMIT },
        ],
      }),
    ],
    controllers: [NewsController],
  };
}
