import { HttpException, HttpStatus, UnauthorizedException } from '@nestjs/common';

/** The one answer for a missing, wrong, expired or revoked token or session. */
export function notSignedIn(): UnauthorizedException {
  return new UnauthorizedException('Sign in or send Authorization: Bearer <token>');
}

/** The same for an unknown name and a wrong password, so names cannot be probed. */
export function wrongNameOrPassword(): UnauthorizedException {
  return new UnauthorizedException(
    "Wrong name or token: a development start's one-time token signs in to its own instance only",
  );
}

/** An address made too many failed attempts; its requests are refused before any check. */
export class TooManySignInFailuresException extends HttpException {
  readonly retryAfterSeconds: number;

  constructor(retryAfterMs: number) {
    const retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
    super(
      {
        statusCode: HttpStatus.TOO_MANY_REQUESTS,
        error: 'Too Many Requests',
        message: `Too many failed sign-in attempts from this address; try again in ${retryAfterSeconds} s`,
      },
      HttpStatus.TOO_MANY_REQUESTS,
    );
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
