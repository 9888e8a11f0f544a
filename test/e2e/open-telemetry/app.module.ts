import {
  Controller,
  Get,
  UseGuards,
  type INestApplication,
  type ModuleMetadata,
} from '@nestjs/common';
import { context, trace } from '@opentelemetry/api';
import { SluiceGuard, SluiceModule, Throttle } from '@sluice/nest';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Two replies a minute per X-User, a refusal blocks for a minute; quotes by plan. */
@Controller()
@UseGuards(SluiceGuard)
export class TracedController {
  @Get('reply')
  @Throttle('reply', {
    algorithm: 'sliding-log',
    limit: 2,
    periodMs: 60_000,
    key: 'header:x-user',
    penalty: { afterViolations: 1, blockMs: 60_000 },
  })
  reply(): string {
    return 'replied';
  }

  @Get('quote')
  @Throttle('quote', {
    algorithm: 'fixed-window',
    limit: 1,
    periodMs: 60_000,
    key: 'header:x-user',
    tiers: { pro: { limit: 10 } },
  })
  quote(): string {
    return 'a quote';
  }
}

export function tracedApp(options: {
  redisUrl: string;
  prefix: string;
  openTelemetry?: boolean;
}): ModuleMetadata {
  return {
    imports: [
      SluiceModule.forRoot({
        redis: options.redisUrl,
        prefix: options.prefix,
        openTelemetry: options.openTelemetry,
        tiers: {
          resolve: (request) =>
            (request as IncomingMessage).headers['x-plan'] as string | undefined,
        },
      }),
    ],
    controllers: [TracedController],
  };
}

/**
 * What an HTTP instrumentation does: each request runs in a span of its own, ended when the
 * response is sent. Installed as the app's first middleware, on Express and Fastify alike.
 */
export function traceRequests(app: INestApplication): void {
  const tracer = trace.getTracer('test-http');
  app.use((request: IncomingMessage, response: ServerResponse, next: () => void) => {
    const span = tracer.startSpan(`${request.method} ${request.url}`);
    response.on('finish', () => span.end());
    context.with(trace.setSpan(context.active(), span), next);
  });
}
