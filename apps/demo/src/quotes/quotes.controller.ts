import {
  BadRequestException,
  Body,
  Controller,
  Get,
  Header,
  HttpCode,
  Post,
  Query,
  Res,
} from '@nestjs/common';
import { Throttle } from '@sluice/nest/internals';
import { MAX_PROMPT } from '../policies.js';

const QUOTES = [
  'It does not do to dwell on dreams and forget to live.',
  'Happiness can be found, even in the darkest of times.',
  'Words are, in my not-so-humble opinion, our most inexhaustible source of magic.',
];

/** The longest GET /api/export waits, ms. */
const MAX_EXPORT_MS = 5_000;

/** A response whose headers can be set, on Express or Fastify. */
interface HeaderTarget {
  header(name: string, value: string): unknown;
}

/**
 * The demo's API product, limited by the caller's plan: a quote per call (`api-burst`, and the
 * daily allowance `api-daily`), generated tokens charged after the answer (`api-tokens`), and a
 * slow export with a cap on those in flight (`api-export`).
 */
@Controller('api')
export class QuotesController {
  private served = 0;

  @Throttle(['api-burst', 'api-daily'])
  @Get('quote')
  quote(): { quote: string } {
    return { quote: QUOTES[this.served++ % QUOTES.length] as string };
  }

  /** "Generates" as many tokens as the prompt has characters, and says so in x-usage-tokens. */
  @Throttle('api-tokens')
  @Post('generate')
  @HttpCode(200)
  @Header('cache-control', 'no-store')
  generate(
    @Body() body: unknown,
    @Res({ passthrough: true }) response: HeaderTarget,
  ): { tokens: number } {
    const prompt = (body as { prompt?: unknown } | undefined)?.prompt;
    if (typeof prompt !== 'string' || prompt.length > MAX_PROMPT) {
      throw new BadRequestException(`prompt: must be a string of at most ${MAX_PROMPT} characters`);
    }
    response.header('x-usage-tokens', String(prompt.length));
    return { tokens: prompt.length };
  }

  /** An export that takes `ms` milliseconds to answer. */
  @Throttle('api-export')
  @Get('export')
  async export(@Query('ms') ms?: string): Promise<{ exported: true; ms: number }> {
    const wait = ms === undefined ? 0 : Number(ms);
    if (!/^\d+$/.test(ms ?? '0') || wait > MAX_EXPORT_MS) {
      throw new BadRequestException(`ms: must be an integer from 0 to ${MAX_EXPORT_MS}`);
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
    return { exported: true, ms: wait };
  }
}
