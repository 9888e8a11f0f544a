import { Controller, Get } from '@nestjs/common';
import { SluiceService } from '@sluice/nest';

@Controller()
export class AppController {
  constructor(private readonly sluice: SluiceService) {}

  /** For load balancers and container health checks. */
  @Get('health')
  health(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** The limits in force, so a client (or a test) can read them instead of guessing. */
  @Get('limits')
  limits(): { policies: unknown[] } {
    return {
      policies: this.sluice.engine.policies
        .all()
        .map(
          ({
            name,
            description,
            algorithm,
            limit,
            periodMs,
            burst,
            maxDelayMs,
            key,
            match,
            count,
            penalty,
            mode,
          }) => ({
            name,
            description,
            algorithm,
            limit,
            periodMs,
            burst,
            maxDelayMs,
            key,
            match,
            count,
            penalty,
            mode,
          }),
        ),
    };
  }
}
