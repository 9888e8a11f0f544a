import { Controller, Get, UseGuards, type ModuleMetadata } from '@nestjs/common';
import { SluiceGuard, SluiceModule, Throttle, type SluiceModuleOptions } from '@sluice/nest';

@Controller()
@UseGuards(SluiceGuard)
export class HeadersController {
  /** Sliding log: every entry made within the same second leaves in 60 s. */
  @Get('reply')
  @Throttle('reply', { algorithm: 'sliding-log', limit: 3, periodMs: 60_000, key: 'ip' })
  reply(): { ok: true } {
    return { ok: true };
  }

  /** Token bucket of 4 refilling one token every 15 s: full again 15 s per token taken. */
  @Get('bucket')
  @Throttle('bucket', { algorithm: 'token-bucket', limit: 4, periodMs: 60_000, key: 'ip' })
  bucket(): { ok: true } {
    return { ok: true };
  }
}

export function headersApp(options: SluiceModuleOptions): ModuleMetadata {
  return { imports: [SluiceModule.forRoot(options)], controllers: [HeadersController] };
}
