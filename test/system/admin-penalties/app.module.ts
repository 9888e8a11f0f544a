import {
  Controller,
  Inject,
  Injectable,
  Post,
  UseGuards,
  type ModuleMetadata,
  type OnModuleInit,
} from '@nestjs/common';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import { SluiceAdminModule, type PenaltyWebhook } from '@sluice/admin';
import {
  PENALTY_EVENT_TYPES,
  SluiceGuard,
  SluiceModule,
  Throttle,
  type PenaltyEvent,
  type PolicyInput,
} from '@sluice/nest/internals';
import { TOKENS } from '../admin-api/app.module.js';

const CREDENTIALS = `alice:admin:${TOKENS.admin},olga:operator:${TOKENS.operator},victor:viewer:${TOKENS.viewer}`;

/**
 * One attempt a minute per X-User (a sliding log: no window boundary for a test to cross); each
 * refusal blocks, a minute, then 2, then 4.
 */
export const ATTEMPTS: PolicyInput = {
  name: 'attempts',
  algorithm: 'sliding-log',
  limit: 1,
  periodMs: 60_000,
  key: 'header:x-user',
  penalty: {
    afterViolations: 1,
    blockMs: 60_000,
    escalation: 2,
    maxBlockMs: 600_000,
    forgetAfterMs: 3_600_000,
  },
};

@Controller('attempt')
@UseGuards(SluiceGuard)
export class AttemptController {
  @Post()
  @Throttle('attempts')
  attempt(): string {
    return 'tried';
  }
}

/** Every penalty event the app's event emitter carried, in order. */
@Injectable()
export class HeardEvents implements OnModuleInit {
  readonly events: PenaltyEvent[] = [];

  constructor(@Inject(EventEmitter2) private readonly emitter: EventEmitter2) {}

  onModuleInit(): void {
    for (const type of PENALTY_EVENT_TYPES) {
      this.emitter.on(`sluice.${type}`, (event: PenaltyEvent) => this.events.push(event));
    }
  }
}

export function penaltiesApp(options: {
  redisUrl: string;
  prefix: string;
  databaseUrl: string;
  webhooks?: PenaltyWebhook[];
}): ModuleMetadata {
  return {
    imports: [
      EventEmitterModule.forRoot(),
      SluiceModule.forRoot({
        redis: options.redisUrl,
        prefix: options.prefix,
        policies: [ATTEMPTS],
      }),
      SluiceAdminModule.forRoot({
        database: options.databaseUrl,
        auth: { credentials: CREDENTIALS },
        penalties: { claimIdleMs: 500, webhooks: options.webhooks },
      }),
    ],
    controllers: [AttemptController],
    providers: [HeardEvents],
  };
}
