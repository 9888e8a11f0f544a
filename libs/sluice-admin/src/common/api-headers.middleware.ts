import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, type NestMiddleware } from '@nestjs/common';

/**
 * Every admin API response, an error from the auth guard included: never kept by a browser or a
 * proxy (it holds policies, identifiers and audit entries), and never sniffed into another type.
 * docs/security.md lists each header.
 */
@Injectable()
export class ApiHeadersMiddleware implements NestMiddleware {
  use(_request: IncomingMessage, response: ServerResponse, next: () => void): void {
    response.setHeader('cache-control', 'no-store');
    response.setHeader('x-content-type-options', 'nosniff');
    next();
  }
}
