import {
  Catch,
  Controller,
  Get,
  HttpException,
  Injectable,
  UseGuards,
  type ArgumentsHost,
  type CanActivate,
  type ExceptionFilter,
  type ExecutionContext,
  type ModuleMetadata,
} from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { SluiceGuard, SluiceModule, Throttle, type SluiceModuleOptions } from '@sluice/nest';

export const HOUR_MS = 3_600_000;

/** Every HTTP error goes through the app's filter, which says so in a header. */
@Catch(HttpException)
export class MarkingFilter implements ExceptionFilter {
  catch(exception: HttpException, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<{
      status?: (code: number) => unknown;
      code?: (code: number) => unknown;
      header(name: string, value: string): unknown;
      send(body: unknown): unknown;
    }>();
    response.header('x-filtered', 'yes');
    if (typeof response.code === 'function') response.code(exception.getStatus());
    else response.status?.(exception.getStatus());
    response.send(exception.getResponse());
  }
}

/** Signs in whoever sends `x-session` (what an auth guard would do). */
@Injectable()
export class SessionGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{
      headers: Record<string, string | undefined>;
      user?: { id: string };
    }>();
    const session = request.headers['x-session'];
    if (session !== undefined) request.user = { id: session };
    return true;
  }
}

@Controller()
@UseGuards(SessionGuard, SluiceGuard)
export class ForumController {
  @Get('reply')
  @Throttle('reply')
  reply(): { ok: true } {
    return { ok: true };
  }

  @Get('search')
  @Throttle('search')
  search(): { ok: true } {
    return { ok: true };
  }

  @Get('feed')
  @Throttle('crawlers')
  feed(): { ok: true } {
    return { ok: true };
  }

  @Get('profile')
  @Throttle('profile')
  profile(): { ok: true } {
    return { ok: true };
  }
}

const hourly = { algorithm: 'sliding-log', limit: 100, periodMs: HOUR_MS } as const;

export function forumApp(options: SluiceModuleOptions): ModuleMetadata {
  return {
    imports: [
      SluiceModule.forRoot({
        ...options,
        metrics: true,
        policies: [
          { name: 'reply', key: 'header:x-user', ...hourly },
          { name: 'search', key: 'header:x-user', ...hourly },
          { name: 'profile', key: 'user', ...hourly },
          { name: 'crawlers', key: 'header:x-user', match: { userAgent: 'bot' }, ...hourly },
        ],
      }),
    ],
    controllers: [ForumController],
    providers: [{ provide: APP_FILTER, useClass: MarkingFilter }],
  };
}
