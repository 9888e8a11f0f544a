import { Body, Controller, HttpCode, Post, UnauthorizedException } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import { Throttle } from '@sluice/nest/internals';
import { ZodBodyPipe } from '../common/zod-body.pipe.js';
import { LoginSchema, type LoginInput } from './login.schemas.js';

/** The demo's only password, the same for every user. */
export const DEMO_PASSWORD = 'correct horse';

const digest = (password: string): Buffer => createHash('sha256').update(password).digest();
const EXPECTED = digest(DEMO_PASSWORD);

@Controller('login')
export class AuthController {
  /**
   * `login` counts failures only: a 2xx answer gives its charge back. Too many failures block
   * the address and username, for longer after each new offence.
   */
  @Throttle('login')
  @Post()
  @HttpCode(200)
  login(@Body(new ZodBodyPipe(LoginSchema)) input: LoginInput): { user: { id: string } } {
    if (!timingSafeEqual(digest(input.password), EXPECTED)) {
      throw new UnauthorizedException('Wrong username or password');
    }
    return { user: { id: input.username } };
  }
}
