import { Controller, Get, type ModuleMetadata } from '@nestjs/common';
import {
  SluiceModule,
  Throttle,
  ThrottleTier,
  type PolicyInput,
  type SluiceModuleOptions,
} from '@sluice/nest';

/** Every call the app's tier resolver got, so a test can count them per request. */
export const resolverCalls: string[] = [];

@Controller()
export class QuoteController {
  @Get('quote')
  @Throttle(['quote-burst', 'quote-hourly'])
  quote(): string {
    return 'a quote';
  }

  /** Partners' route: always at the pro tier, whatever the resolver would say. */
  @Get('partner-quote')
  @Throttle(['quote-burst', 'quote-hourly'])
  @ThrottleTier('pro')
  partnerQuote(): string {
    return 'a partner quote';
  }
}

const perKey = { algorithm: 'sliding-log', periodMs: 60_000, key: 'header:x-api-key' } as const;

/** Two tiered policies on one route, counting the same API key. */
export const POLICIES: PolicyInput[] = [
  { ...perKey, name: 'quote-burst', limit: 2, tiers: { free: { limit: 3 }, pro: { limit: 5 } } },
  {
    ...perKey,
    name: 'quote-hourly',
    limit: 20,
    periodMs: 3_600_000,
    tiers: { free: { limit: 30 }, pro: { limit: 50 } },
  },
];

/**
 * The tier comes from the X-Plan header, as an app would read it from its key table or a JWT
 * claim: `boom` throws, `slow` never answers, anything else is returned as it is.
 */
export function tiersApp(options: SluiceModuleOptions): ModuleMetadata {
  return {
    imports: [
      SluiceModule.forRoot({
        ...options,
        policies: POLICIES,
        global: true,
        metrics: true,
        tiers: {
          timeoutMs: 20,
          resolve: (request) => {
            const plan = (request as { headers: Record<string, string | undefined> }).headers[
              'x-plan'
            ];
            resolverCalls.push(plan ?? '');
            if (plan === 'boom') throw new Error('the key table is down');
            if (plan === 'slow') return new Promise<string>(() => undefined);
            return plan;
          },
        },
      }),
    ],
    controllers: [QuoteController],
  };
}
