import {
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { Observable, type Subscription } from 'rxjs';
import { takeOutcome } from '../request/handler.outcome.js';

/**
 * Tells SluiceGuard how a GraphQL resolver or a WebSocket handler ended: whether it failed, for
 * `count: 'failures'` (a resolver's error reaches the client inside an HTTP 200), and that it
 * ended, which releases its concurrency lease. SluiceModule puts it on every resolver and gateway
 * and on no HTTP controller (handler-outcome.attacher.ts); anything else passes straight through.
 *
 * A WebSocket adapter stops listening to a handler when its client disconnects, while the handler
 * works on: the interceptor then keeps listening itself, until the handler's first answer, its
 * error or its end (at most as long as its lease would last), so a slot is held while the handler
 * works, not while the socket is open (docs/algorithms.md, "What a request holds").
 */
@Injectable()
export class HandlerOutcomeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const type = context.getType<string>();
    if (type !== 'graphql' && type !== 'ws') return next.handle();
    // The invocation's key, as the guard filed it: a resolver call's `info`, a message's data.
    const key = context.getArgByIndex<unknown>(type === 'graphql' ? 3 : 1);
    const report = typeof key === 'object' && key !== null ? takeOutcome(key) : undefined;
    if (report === undefined) return next.handle();
    return new Observable<unknown>((subscriber) => {
      let settled = false;
      let attached = true;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const settle = (failed: boolean) => {
        if (settled) return;
        settled = true;
        if (timer !== undefined) clearTimeout(timer);
        report.settle(failed);
        // Only after the subscriber left, so never before `source` is assigned.
        if (!attached) source.unsubscribe();
      };
      const source: Subscription = next.handle().subscribe({
        next: (value) => {
          settle(value instanceof Error);
          if (attached) subscriber.next(value);
        },
        error: (error: unknown) => {
          settle(true);
          if (attached) subscriber.error(error);
        },
        complete: () => {
          settle(false);
          if (attached) subscriber.complete();
        },
      });
      return () => {
        attached = false;
        if (settled) return source.unsubscribe();
        if (report.holdMs <= 0) {
          settle(false);
          return source.unsubscribe();
        }
        // The client is gone, the handler works on: its outcome is awaited, bounded.
        timer = setTimeout(() => settle(false), report.holdMs);
        timer.unref();
      };
    });
  }
}
