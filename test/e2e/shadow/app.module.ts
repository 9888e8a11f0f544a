import { Controller, Get, UseGuards, type ModuleMetadata } from '@nestjs/common';
import {
  SluiceGuard,
  SluiceModule,
  Throttle,
  type PolicyInput,
  type SluiceModuleOptions,
} from '@sluice/nest';

const minute = { algorithm: 'sliding-log', periodMs: 60_000, key: 'ip' } as const;

export const POLICIES: PolicyInput[] = [
  { name: 'watch', ...minute, limit: 2, mode: 'shadow' },
  { name: 'open', ...minute, limit: 100 },
];

@Controller()
@UseGuards(SluiceGuard)
export class ShadowController {
  @Get('watched')
  @Throttle('watch')
  watched(): string {
    return 'watched';
  }

  @Get('mixed')
  @Throttle(['watch', 'open'])
  mixed(): string {
    return 'mixed';
  }
}

export function shadowApp(options: Omit<SluiceModuleOptions, 'policies'>): ModuleMetadata {
  return {
    imports: [SluiceModule.forRoot({ ...options, policies: POLICIES })],
    controllers: [ShadowController],
  };
}
