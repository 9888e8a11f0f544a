import { Controller, Get, UseGuards, type ModuleMetadata } from '@nestjs/common';
import { SluiceGuard, SluiceModule, Throttle, type SluiceModuleOptions } from '@sluice/nest';

/** Refused (429, reason store-error) whenever Redis does not decide in time. */
@Controller()
@UseGuards(SluiceGuard)
export class LagController {
  @Get('checkout')
  @Throttle('checkout', {
    algorithm: 'fixed-window',
    limit: 1_000_000,
    periodMs: 3_600_000,
    key: 'header:x-client',
    onStoreError: 'deny',
  })
  checkout(): string {
    return 'ordered';
  }
}

export function lagApp(options: SluiceModuleOptions): ModuleMetadata {
  return { imports: [SluiceModule.forRoot(options)], controllers: [LagController] };
}
