import { Controller, Get, type ModuleMetadata } from '@nestjs/common';
import { SluiceModule, Throttle, type PolicyInput, type SluiceModuleOptions } from '@sluice/nest';

@Controller()
export class ReportsController {
  /** Limited per address and per API key. */
  @Get('report')
  @Throttle(['report-ip', 'report-key'])
  report(): string {
    return 'a report';
  }
}

export const POLICIES: PolicyInput[] = [
  { name: 'report-ip', algorithm: 'fixed-window', limit: 2, periodMs: 60_000, key: 'ip' },
  {
    name: 'report-key',
    algorithm: 'sliding-log',
    limit: 2,
    periodMs: 60_000,
    key: 'header:x-api-key',
  },
];

export function listsApp(options: SluiceModuleOptions): ModuleMetadata {
  return {
    imports: [
      SluiceModule.forRoot({
        ...options,
        policies: POLICIES,
        global: true,
        metrics: true,
        // The tests name clients by X-Forwarded-For from loopback.
        trustProxy: 'loopback',
      }),
    ],
    controllers: [ReportsController],
  };
}
