import { Controller, Get } from '@nestjs/common';
import { PolicyBus, PolicyRegistry, type Policy } from '@sluice/nest/internals';

/** What /limits shows of a policy: its rule, not its overrides (they name customers). */
const SHOWN_FIELDS = [
  'name',
  'description',
  'algorithm',
  'limit',
  'periodMs',
  'burst',
  'maxDelayMs',
  'key',
  'match',
  'count',
  'penalty',
  'mode',
] as const satisfies ReadonlyArray<keyof Policy>;

@Controller()
export class AppController {
  constructor(
    private readonly policies: PolicyRegistry,
    private readonly bus: PolicyBus,
  ) {}

  /** For load balancers and container health checks; also which policy version is in force. */
  @Get('health')
  health(): { status: 'ok'; policyVersion: number } {
    return { status: 'ok', policyVersion: this.bus.version };
  }

  /** The limits in force, so a client (or a test) can read them instead of guessing. */
  @Get('limits')
  limits(): { policies: Array<Partial<Policy>> } {
    return {
      policies: this.policies
        .all()
        .map((policy) => Object.fromEntries(SHOWN_FIELDS.map((field) => [field, policy[field]]))),
    };
  }
}
