import {
  Body,
  Controller,
  Post,
  UnauthorizedException,
  UseGuards,
  type ModuleMetadata,
} from '@nestjs/common';
import { SluiceGuard, SluiceModule, Throttle, type SluiceModuleOptions } from '@sluice/nest';

export const PASSWORD = 'correct horse';

@Controller()
@UseGuards(SluiceGuard)
export class LoginController {
  /** Three failed attempts an hour, counted in a sliding log so no window edge falls in a test. */
  @Post('login')
  @Throttle('login', {
    algorithm: 'sliding-log',
    limit: 3,
    periodMs: 3_600_000,
    key: 'ip',
    count: 'failures',
  })
  login(@Body() body: { password?: string }): { token: string } {
    if (body.password !== PASSWORD) throw new UnauthorizedException('Wrong password');
    return { token: 'signed-in' };
  }
}

export function countFailuresApp(options: SluiceModuleOptions): ModuleMetadata {
  return { imports: [SluiceModule.forRoot(options)], controllers: [LoginController] };
}
