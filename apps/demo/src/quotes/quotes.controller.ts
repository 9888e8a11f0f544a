import { Controller, Get } from '@nestjs/common';
import { Throttle } from '@sluice/nest/internals';

const QUOTES = [
  'It does not do to dwell on dreams and forget to live.',
  'Happiness can be found, even in the darkest of times.',
  'Words are, in my not-so-humble opinion, our most inexhaustible source of magic.',
];

/** The demo's API product: a quote per call, limited by the caller's plan (`api-burst`). */
@Controller('api')
export class QuotesController {
  private served = 0;

  @Throttle('api-burst')
  @Get('quote')
  quote(): { quote: string } {
    return { quote: QUOTES[this.served++ % QUOTES.length] as string };
  }
}
