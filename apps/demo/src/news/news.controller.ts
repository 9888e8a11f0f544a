import { Controller, Get } from '@nestjs/common';
import { Throttle } from '@sluice/nest/internals';

const HEADLINES = [
  'Ministry denies everything',
  'Chudley Cannons lose again',
  'Hogsmeade weekend moved to Saturday',
];

@Controller('news')
export class NewsController {
  /** Crawlers are held to the `crawler` limit as well as the `news` one everybody gets. */
  @Throttle(['crawler', 'news'])
  @Get()
  news(): { servedAt: number; headlines: string[] } {
    return { servedAt: Date.now(), headlines: HEADLINES };
  }
}
