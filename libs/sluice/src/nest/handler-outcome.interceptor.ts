import {
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { tap, type Observable } from 'rxjs';
import { takeOutcomeListener } from '../request/handler.outcome.js';

/**
 * Tells SluiceGuard how a GraphQL resolver or a WebSocket handler ended: whether it failed, for
 * `count: 'failures'` (a resolver's error reaches the client inside an HTTP 200), and that it
 * ended, which releases its concurrency lease. Registered by SluiceModule as a global interceptor
 * when @nestjs/graphql or @nestjs/websockets is installed; HTTP passes straight through.
 */
@Injectable()
export class HandlerOutcomeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const type = context.getType<string>();
    if (type !== 'graphql' && type !== 'ws') return next.handle();
    // The invocation's key, as the guard filed it: a resolver call's `info`, a message's data.
    const info = context.getArgByIndex<unknown>(type === 'graphql' ? 3 : 1);
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
        finalize: () => settle(false),
      }),
    );
  }
}
