import {
  Controller,
  Get,
  Module,
  UseGuards,
  type MiddlewareConsumer,
  type ModuleMetadata,
  type NestModule,
} from '@nestjs/common';
import {
  SluiceGuard,
  SluiceModule,
  Throttle,
  type PolicyInput,
  type SluiceModuleOptions,
} from '@sluice/nest';

/**
 * Two requests a minute per whatever the policy's key counts; a sliding log, so no window boundary
 * can fall inside a test and reset the count.
 */
const twoAMinute = (name: string, key: string): PolicyInput => ({
  name,
  algorithm: 'sliding-log',
  limit: 2,
  periodMs: 60_000,
  key,
});

interface RequestWithUser {
  headers: Record<string, string | string[] | undefined>;
  user?: { id: string };
}

@Controller()
@UseGuards(SluiceGuard)
export class TrackedController {
  @Get('by-ip')
  @Throttle('by-ip')
  byIp(): string {
    return 'ok';
  }

  @Get('by-user')
  @Throttle('by-user')
  byUser(): string {
    return 'ok';
  }

  @Get('by-api-key')
  @Throttle('by-api-key')
  byApiKey(): string {
    return 'ok';
  }

  @Get('by-tenant')
  @Throttle('by-tenant')
  byTenant(): string {
    return 'ok';
  }
}

/**
 * Stands in for auth middleware: the X-User header, when present, is the authenticated user. On
 * Fastify, Nest middleware gets the raw Node request, so the user lands on `request.raw.user`.
 */
@Module({ controllers: [TrackedController] })
export class TrackedModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply((request: RequestWithUser, _response: unknown, next: () => void) => {
        const user = request.headers['x-user'];
        if (typeof user === 'string') request.user = { id: user };
        next();
      })
      .forRoutes(TrackedController);
  }
}

export function trackersApp(options: SluiceModuleOptions): ModuleMetadata {
  return {
    imports: [
      SluiceModule.forRoot({
        ...options,
        policies: [
          twoAMinute('by-ip', 'ip'),
          twoAMinute('by-user', 'user'),
          twoAMinute('by-api-key', 'header:x-api-key'),
          twoAMinute('by-tenant', 'tenant'),
        ],
        trackers: {
          // The tenant is the X-Tenant header without case; no header: counted by address.
          tenant: (request: RequestWithUser) => {
            const tenant = request.headers['x-tenant'];
            return typeof tenant === 'string' ? tenant.toLowerCase() : undefined;
          },
        },
      }),
      TrackedModule,
    ],
  };
}
