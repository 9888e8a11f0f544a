import { Controller, Get, type ModuleMetadata } from '@nestjs/common';
import { SluiceModule, Throttle, type SluiceModuleOptions } from '@sluice/nest';

@Controller()
export class ReportController {
  /** A daily allowance per API key, renewed at midnight in Paris, tiered by plan. */
  @Get('report')
  @Throttle('reports-daily')
  report(): string {
    return 'a report';
  }

  /** A monthly allowance renewed on the 15th, in New York. */
  @Get('export')
  @Throttle('exports-monthly')
  export(): string {
    return 'an export';
  }
}

export function calendarApp(options: SluiceModuleOptions): ModuleMetadata {
  return {
    imports: [
      SluiceModule.forRoot({
        ...options,
        global: true,
        tiers: {
          resolve: (request: unknown) =>
            (request as { headers: Record<string, string | undefined> }).headers['x-plan'],
          // The customer's billing day, for monthly quotas: here from a header, in an app from
          // the account.
          anchorDay: (request: unknown) => {
            const day = (request as { headers: Record<string, string | undefined> }).headers[
              'x-billing-day'
            ];
            return day === undefined ? undefined : Number(day);
          },
        },
        policies: [
          {
            name: 'reports-daily',
            algorithm: 'fixed-window',
            limit: 2,
            calendar: { unit: 'day', timeZone: 'Europe/Paris' },
            key: 'header:x-api-key',
            tiers: { pro: { limit: 4 } },
          },
          {
            name: 'exports-monthly',
            algorithm: 'fixed-window',
            limit: 1,
            calendar: { unit: 'month', timeZone: 'America/New_York', anchorDay: 15 },
            key: 'header:x-api-key',
          },
        ],
      }),
    ],
    controllers: [ReportController],
  };
}
