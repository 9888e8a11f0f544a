import { Controller, Get, UseGuards, type ModuleMetadata } from '@nestjs/common';
import {
  SluiceGuard,
  SluiceModule,
  Throttle,
  type PolicyInput,
  type SluiceModuleOptions,
} from '@sluice/nest';

const minute = { algorithm: 'sliding-log', periodMs: 60_000 } as const;

export const POLICIES: PolicyInput[] = [
  { name: 'a', ...minute, limit: 5, key: 'ip' },
  { name: 'b', ...minute, limit: 2, key: 'ip' },
  { name: 'per-ip', ...minute, limit: 5, key: 'ip' },
  { name: 'per-key', ...minute, limit: 1, key: 'header:x-api-key' },
];

@Controller()
@UseGuards(SluiceGuard)
export class AllOrNothingController {
  @Get('both')
  @Throttle(['a', 'b'])
  both(): string {
    return 'both';
  }

  @Get('only-a')
  @Throttle('a')
  onlyA(): string {
    return 'only a';
  }

  @Get('keyed')
  @Throttle(['per-ip', 'per-key'])
  keyed(): string {
    return 'keyed';
  }
}

export function allOrNothingApp(options: Omit<SluiceModuleOptions, 'policies'>): ModuleMetadata {
  return {
    imports: [SluiceModule.forRoot({ ...options, policies: POLICIES })],
    controllers: [AllOrNothingController],
  };
}
