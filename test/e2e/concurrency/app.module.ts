import {
  BadRequestException,
  Catch,
  Controller,
  Get,
  Injectable,
  Query,
  UseFilters,
  UseInterceptors,
  type ArgumentsHost,
  type CallHandler,
  type ExceptionFilter,
  type ModuleMetadata,
  type NestInterceptor,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { map, type Observable } from 'rxjs';
import { SluiceModule, Throttle, type SluiceModuleOptions } from '@sluice/nest';
import { WorkCounter } from '../../support/work.counter.js';

function waitOf(ms: string): number {
  const wait = Number(ms);
  if (!Number.isInteger(wait) || wait < 0 || wait > 10_000) {
    throw new BadRequestException('ms: must be an integer from 0 to 10000');
  }
  return wait;
}

/** What the filtered route throws once it has worked. */
class ExportFailed extends Error {}

/** An app's own exception filter: answers a failed export with 200 and a note, as some apps do. */
@Catch(ExportFailed)
class ExportFailedFilter implements ExceptionFilter {
  constructor(private readonly adapter: HttpAdapterHost) {}

  catch(_error: ExportFailed, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<unknown>();
    this.adapter.httpAdapter.reply(response, { exported: false }, 200);
  }
}

/** An interceptor that throws once the handler has answered: Nest's filter answers 500. */
@Injectable()
class RejectingInterceptor implements NestInterceptor {
  intercept(_context: unknown, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      map(() => {
        throw new Error('the interceptor refused the answer');
      }),
    );
  }
}

@Controller()
export class ExportController {
  constructor(private readonly work: WorkCounter) {}

  /** Answers after `ms` milliseconds: a slow export, at most 2 at once per API key. */
  @Get('export')
  @Throttle('exports-in-flight')
  async export(@Query('ms') ms = '0'): Promise<string> {
    await this.work.run(waitOf(ms));
    return 'an export';
  }

  /** The same, at most 1 at once, its key read by a tracker that takes `x-admission-ms`. */
  @Get('slow-admission')
  @Throttle('slow-admission')
  async slowAdmission(@Query('ms') ms = '0'): Promise<string> {
    await this.work.run(waitOf(ms));
    return 'an export';
  }

  /** Works `ms`, then throws: the exception filter answers 500. */
  @Get('failing')
  @Throttle('exports-in-flight')
  async failing(@Query('ms') ms = '0'): Promise<string> {
    await this.work.run(waitOf(ms));
    throw new Error('the export failed');
  }

  /** Works `ms`, then throws what the app's own filter answers with 200. */
  @Get('filtered')
  @Throttle('exports-in-flight')
  @UseFilters(ExportFailedFilter)
  async filtered(@Query('ms') ms = '0'): Promise<string> {
    await this.work.run(waitOf(ms));
    throw new ExportFailed('the export failed');
  }

  /** Works `ms`, answers, and an interceptor turns the answer into a failure. */
  @Get('intercepted')
  @Throttle('exports-in-flight')
  @UseInterceptors(RejectingInterceptor)
  async intercepted(@Query('ms') ms = '0'): Promise<string> {
    await this.work.run(waitOf(ms));
    return 'an export';
  }

  /** The work's counts, unthrottled. */
  @Get('work')
  counts(): { running: number; most: number; finished: number } {
    return { running: this.work.running, most: this.work.most, finished: this.work.finished };
  }
}

export function concurrencyApp(options: SluiceModuleOptions): ModuleMetadata {
  return {
    imports: [
      SluiceModule.forRoot({
        ...options,
        global: true,
        trackers: {
          // Admission that takes a while before the store call: a client can leave meanwhile.
          slowKey: async (request: { headers: Record<string, string | undefined> }) => {
            const ms = Number(request.headers['x-admission-ms'] ?? 0);
            await new Promise((resolve) => setTimeout(resolve, ms));
            return request.headers['x-api-key'];
          },
        },
        policies: [
          {
            name: 'exports-in-flight',
            algorithm: 'concurrency',
            limit: 2,
            periodMs: 60_000,
            key: 'header:x-api-key',
          },
          {
            name: 'slow-admission',
            algorithm: 'concurrency',
            limit: 1,
            periodMs: 60_000,
            key: 'slowKey',
          },
        ],
      }),
    ],
    controllers: [ExportController],
    providers: [WorkCounter],
  };
}
