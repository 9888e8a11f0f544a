import {
  Delete,
  Get,
  HttpCode,
  Inject,
  Post,
  Req,
  Res,
  UseFilters,
  UseGuards,
} from '@nestjs/common';
import { DatabaseUnavailableFilter } from '../common/database-unavailable.filter.js';
import type { Actor } from '../common/actor.js';
import type { SessionView } from '../common/admin-api.types.js';
import { AdminAuthGuard } from './admin-auth.guard.js';
import { AuthService } from './auth.service.js';
import { assertNotCrossSite } from './csrf.check.js';
import { CurrentActor } from './current-actor.decorator.js';
import { cameOverHttps, setResponseHeader } from './http.access.js';
import { PublicAdminRoute } from './public-admin-route.decorator.js';
import { withRetryAfter } from './retry-after.js';
import { clearedSessionCookie, sessionCookie } from './session.cookie.js';
import { parseSignInBody } from './sign-in-body.schema.js';
import { signInBodySchema } from './sign-in-body.schema.js';
import { DescribedBody } from '../common/request-schema.pipe.js';
import { AdminController } from '../common/admin-controller.decorator.js';

/** The panel's sign-in: a session cookie for name + password (the credential's token). */
@AdminController('session')
@UseGuards(AdminAuthGuard)
@UseFilters(DatabaseUnavailableFilter)
export class SessionController {
  constructor(@Inject(AuthService) private readonly auth: AuthService) {}

  @Post()
  @HttpCode(200)
  @PublicAdminRoute()
  async signIn(
    @DescribedBody(signInBodySchema) body: unknown,
    @Req() request: object,
    @Res({ passthrough: true }) response: unknown,
  ): Promise<SessionView> {
    // A cross-site form could otherwise sign a victim's browser into the attacker's session. The
    // body is parsed here rather than by a pipe, so that check comes first.
    assertNotCrossSite(request);
    const { name, password } = parseSignInBody(body);
    const { credential, secret } = await withRetryAfter(response, () =>
      this.auth.signIn(name, password, request),
    );
    const scope = { secure: this.secure(request) };
    setResponseHeader(response, 'Set-Cookie', sessionCookie(secret, this.auth.sessionTtlMs, scope));
    return { name: credential.name, role: credential.role };
  }

  /** Secure when configured so (production by default), else when the request came over https. */
  private secure(request: object): boolean {
    return this.auth.secureCookies || cameOverHttps(request);
  }

  @Get()
  current(@CurrentActor() actor: Actor): SessionView {
    return { name: actor.name, role: actor.role };
  }

  @Delete()
  @HttpCode(204)
  async signOut(
    @Req() request: object,
    @Res({ passthrough: true }) response: unknown,
  ): Promise<void> {
    await this.auth.signOut(request);
    const scope = { secure: this.secure(request) };
    setResponseHeader(response, 'Set-Cookie', clearedSessionCookie(scope));
  }
}
