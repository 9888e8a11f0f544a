// An app on the in-memory store and channel, its time on a ManualClock, served on loopback: what
// the unit tier runs the guard, service, policy bus and penalty publisher on, with no server
// (docs/testing.md). Only specs import it.
import {
  Controller,
  Get,
  Injectable,
  UseGuards,
  type CanActivate,
  type ExecutionContext,
  type INestApplication,
  type ModuleMetadata,
  type Type,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { ManualClock } from '../clock/clock.js';
import { SluiceEngine } from '../engine/sluice.engine.js';
import type { PolicyInput } from '../policy/policy.types.js';
import { MemoryStore } from '../store/memory.store.js';
import { SluiceGuard } from '../nest/sluice.guard.js';
import { SluiceModule } from '../nest/sluice.module.js';
import type {
  SluiceModuleExtras,
  SluiceModuleOptions,
} from '../config/sluice-options.interface.js';
import { SLUICE_CLOCK } from '../config/sluice.tokens.js';
import { Throttle } from '../metadata/throttle.decorator.js';

export interface MemoryApp {
  app: INestApplication;
  url: string;
  clock: ManualClock;
  engine: SluiceEngine;
  get<T>(token: Type<T> | symbol): T;
  close(): Promise<void>;
}

/** An app's own auth guard, as a stand-in: signs in whoever the `x-user` header names. */
@Injectable()
export class SignedInGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context
      .switchToHttp()
      .getRequest<{ headers: Record<string, string>; user?: object }>();
    request.user = { id: request.headers['x-user'] ?? 'anonymous' };
    return true;
  }
}

/** GET /like under policy `like`. */
@Controller()
@UseGuards(SluiceGuard)
export class LikesController {
  @Get('like')
  @Throttle('like')
  like(): string {
    return 'liked';
  }
}

/** GET /both under `like` and `daily`, decided together. */
@Controller()
@UseGuards(SluiceGuard)
export class BothController {
  @Get('both')
  @Throttle(['like', 'daily'])
  both(): string {
    return 'both';
  }
}

export async function startMemoryApp(
  policies: PolicyInput[],
  options: Omit<SluiceModuleOptions, 'policies' | 'redis'> & Partial<SluiceModuleExtras> = {},
  metadata: ModuleMetadata = {},
): Promise<MemoryApp> {
  const clock = new ManualClock(1_800_000_000_000_000);
  const engine = new SluiceEngine({
    store: new MemoryStore({ clock: clock.now }),
    clock: clock.now,
    policies,
  });
  const moduleRef = await Test.createTestingModule({
    imports: [SluiceModule.forRoot({ ...options, policies }), ...(metadata.imports ?? [])],
    controllers: [LikesController, ...(metadata.controllers ?? [])],
    providers: metadata.providers ?? [],
  })
    .overrideProvider(SluiceEngine)
    .useValue(engine)
    .overrideProvider(SLUICE_CLOCK)
    .useValue(clock.now)
    .compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return {
    app,
    url,
    clock,
    engine,
    get: (token) => app.get(token),
    close: () => app.close(),
  };
}
