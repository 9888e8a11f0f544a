import { Catch, Logger, type ArgumentsHost } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import { isDatabaseUnavailable } from './database-failure.js';

const RETRY_AFTER_SECONDS = 5;

/**
 * 503 with Retry-After when the policy database is unreachable or too slow; every other error is
 * left to Nest's own handling. Nothing is half-written: each change is one transaction.
 */
@Catch()
export class DatabaseUnavailableFilter extends BaseExceptionFilter {
  private readonly logger = new Logger('SluiceAdmin');

  override catch(exception: unknown, host: ArgumentsHost): void {
    if (!isDatabaseUnavailable(exception)) {
      super.catch(exception, host);
      return;
    }
    this.logger.warn(`Policy database unreachable: ${(exception as Error).message}`);
    const adapter = this.httpAdapterHost?.httpAdapter;
    const response: unknown = host.switchToHttp().getResponse();
    if (adapter === undefined || adapter.isHeadersSent(response)) return;
    adapter.setHeader(response, 'Retry-After', String(RETRY_AFTER_SECONDS));
    adapter.reply(
      response,
      {
        statusCode: 503,
        error: 'Service Unavailable',
        message: `The policy database is unreachable, so nothing was read or written; try again in ${RETRY_AFTER_SECONDS} s.`,
      },
      503,
    );
  }
}
