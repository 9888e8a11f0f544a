import { Readable } from 'node:stream';
import {
  BadRequestException,
  Body,
  Controller,
  Get,
  HttpCode,
  Inject,
  Post,
  Req,
  Res,
  StreamableFile,
  type ModuleMetadata,
} from '@nestjs/common';
import { SluiceModule, SluiceService, Throttle, type SluiceModuleOptions } from '@sluice/nest';

interface HeaderTarget {
  header(name: string, value: string): unknown;
}

@Controller()
export class CompletionController {
  constructor(@Inject(SluiceService) private readonly sluice: SluiceService) {}

  /** Says the tokens it used in a response header; a failure says none. */
  @Post('complete')
  @HttpCode(200)
  @Throttle('tokens-monthly')
  complete(
    @Body() body: { tokens?: number; fail?: boolean },
    @Res({ passthrough: true }) response: HeaderTarget,
  ): { tokens: number } {
    if (body.fail === true) throw new BadRequestException('the model failed');
    const tokens = body.tokens ?? 0;
    response.header('x-usage-tokens', String(tokens));
    return { tokens };
  }

  /** Says what it used in a header of the app's own, which the module's usageOf reads. */
  @Post('metered')
  @HttpCode(200)
  @Throttle('tokens-monthly')
  metered(
    @Body() body: { tokens?: number },
    @Res({ passthrough: true }) response: HeaderTarget,
  ): { tokens: number } {
    const tokens = body.tokens ?? 0;
    response.header('x-metered', `tokens=${tokens}`);
    return { tokens };
  }

  /**
   * Streams 40 chunks of 100 units, one every 10 ms, reporting the units sent so far before each
   * one: what a model's answer does as it produces tokens.
   */
  @Get('stream')
  @Throttle('stream-tokens')
  stream(@Req() request: object): StreamableFile {
    let sent = 0;
    const chunks = new Readable({
      read() {
        if (sent === 40) return void this.push(null);
        setTimeout(() => {
          sent++;
          sluice.reportUsage(request, sent * 100);
          this.push(`${'token '.repeat(100)}\n`);
        }, 10);
      },
    });
    const sluice = this.sluice;
    return new StreamableFile(chunks, { type: 'text/plain' });
  }

  /** Reports what it used through SluiceService instead: no header. */
  @Post('reported')
  @HttpCode(200)
  @Throttle('tokens-monthly')
  reported(@Body() body: { tokens?: number }, @Req() request: object): { tokens: number } {
    const tokens = body.tokens ?? 0;
    this.sluice.reportUsage(request, tokens);
    return { tokens };
  }
}

export function usageApp(options: SluiceModuleOptions): ModuleMetadata {
  return {
    imports: [
      SluiceModule.forRoot({
        ...options,
        global: true,
        // A function of the response: here its own header's "tokens=<n>".
        usageOf: (_policy, _request, response) => {
          const value = (response as { getHeader(name: string): unknown }).getHeader('x-metered');
          const match = typeof value === 'string' ? /^tokens=(\d+)$/.exec(value) : null;
          return match === null ? undefined : Number(match[1]);
        },
        policies: [
          {
            name: 'tokens-monthly',
            algorithm: 'fixed-window',
            limit: 1_000,
            calendar: { unit: 'month' },
            key: 'header:x-api-key',
            cost: 10,
            usage: { header: 'x-usage-tokens', maxCost: 600 },
          },
          {
            name: 'stream-tokens',
            algorithm: 'fixed-window',
            limit: 2_000,
            periodMs: 3_600_000,
            key: 'header:x-api-key',
            cost: 100,
            usage: { maxCost: 4_000 },
          },
        ],
      }),
    ],
    controllers: [CompletionController],
  };
}
