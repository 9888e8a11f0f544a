import { BadRequestException, Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';

/** What a forum user's name may be: short, and safe in a log line or a Redis key. */
export const USER_NAME = /^[A-Za-z0-9._@-]{1,64}$/;
export const USER_NAME_RULE = "1 to 64 letters, digits, '.', '_', '-' or '@'";

export interface ForumUser {
  id: string;
}

export type ForumRequest = Request & { user?: ForumUser };

/**
 * The demo's stand-in for authentication: the `X-User` header names the user, and the `user`
 * policies count by that name. Without the header the request is anonymous and counted by its
 * address.
 */
@Injectable()
export class XUserMiddleware implements NestMiddleware {
  use(request: ForumRequest, _response: Response, next: NextFunction): void {
    const name = request.headers['x-user'];
    if (name !== undefined) {
      // Node joins a repeated header with ", ", which the rule refuses too.
      if (typeof name !== 'string' || !USER_NAME.test(name)) {
        throw new BadRequestException(`X-User header must be ${USER_NAME_RULE}`);
      }
      request.user = { id: name };
    }
    next();
  }
}
