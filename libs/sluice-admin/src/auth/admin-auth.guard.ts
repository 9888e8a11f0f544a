import {
  ForbiddenException,
  Inject,
  Injectable,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { attachActor } from '../common/actor.js';
import type { AdminRole } from '../config/admin-auth-options.interface.js';
import { roleSatisfies } from '../common/admin-role.js';
import { AuthService } from './auth.service.js';
import { assertNotCrossSite } from './csrf.check.js';
import { setResponseHeader } from './http.access.js';
import { withRetryAfter } from './retry-after.js';
import { PUBLIC_ADMIN_ROUTE_METADATA } from './public-admin-route.decorator.js';
import { REQUIRED_ROLE_METADATA } from './require-role.decorator.js';

/**
 * Lets a request through when its bearer token or session has the role the route needs
 * (@RequireRole, default viewer), and hands its Actor to @CurrentActor().
 */
@Injectable()
export class AdminAuthGuard implements CanActivate {
  constructor(
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(AuthService) private readonly auth: AuthService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    noStore(context.switchToHttp().getResponse());
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ADMIN_ROUTE_METADATA, targets)) {
      return true;
    }
    const http = context.switchToHttp();
    const request = http.getRequest<object>();
    const { actor, via } = await withRetryAfter(http.getResponse(), () =>
      this.auth.authenticate(request),
    );
    const needed =
      this.reflector.getAllAndOverride<AdminRole | undefined>(REQUIRED_ROLE_METADATA, targets) ??
      'viewer';
    if (!roleSatisfies(actor.role, needed)) {
      throw new ForbiddenException(`This needs the ${needed} role; you are ${actor.role}`);
    }
    if (via === 'session') assertNotCrossSite(request);
    attachActor(request, actor);
    return true;
  }
}

/**
 * Every admin API answer, the guard's own refusals included: never kept by a browser or a proxy
 * (it holds policies, identifiers and audit entries), never sniffed into another type. Set here
 * because this guard is the first thing every admin route runs. docs/security.md lists it.
 */
function noStore(response: unknown): void {
  setResponseHeader(response, 'Cache-Control', 'no-store');
  setResponseHeader(response, 'X-Content-Type-Options', 'nosniff');
}
