import {
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { tap, type Observable } from 'rxjs';
import { takeOutcomeListener } from './handler.outcome.js';

/**
 * Tells SluiceGuard whether a GraphQL resolver failed, for `count: 'failures'`: a resolver's
 * error reaches the client inside an HTTP 200. Registered by SluiceModule as a global interceptor
 * when @nestjs/graphql is installed; any other context passes straight through.
 */
@Injectable()
export class GraphqlOutcomeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType<string>() !== 'graphql') return next.handle();
    const info = context.getArgByIndex<unknown>(3);
    const listener =
      typeof info === 'object' && info !== null ? takeOutcomeListener(info) : undefined;
    if (listener === undefined) return next.handle();
    let settled = false;
    const settle = (failed: boolean) => {
      if (settled) return;
      settled = true;
      listener(failed);
    };
    return next.handle().pipe(
      tap({
        next: (value) => settle(value instanceof Error),
        error: () => settle(true),
        complete: () => settle(false),
      }),
    );
  }
}
